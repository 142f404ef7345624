// Times the API calls each console page makes, signed with the console's own signer, against a running
// node: node docs/console/measure.mjs http://127.0.0.1:18080 <access key> <secret> [runs]
// Prints the median and the slowest of `runs` (default 5) for each call, in milliseconds.
import { buildQuery, signRequest } from '../../src/main/resources/ax-console/js/signing.js';

const [base, accessKey, secret, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 5);

async function get(path, query = {}, signed = true) {
  const rawQuery = buildQuery(query);
  const headers = signed ? await signRequest({ method: 'GET', path, rawQuery, body: null, accessKey, secret }) : {};
  const started = performance.now();
  const res = await fetch(base + path + (rawQuery ? `?${rawQuery}` : ''), { headers });
  const body = await res.text();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${path}?${rawQuery}: ${res.status} ${body}`);
  return { ms, body };
}

async function time(label, fn) {
  const ms = [];
  let last;
  for (let i = 0; i < runs; i++) {
    last = await fn();
    ms.push(last.ms);
  }
  ms.sort((a, b) => a - b);
  console.log(`${label.padEnd(58)} median ${ms[Math.floor(ms.length / 2)].toFixed(1).padStart(7)} ms   max ${ms[ms.length - 1].toFixed(1).padStart(7)} ms`);
  return last;
}

const first = JSON.parse((await get('/openapi/v1/tasks', { limit: 50 })).body);
const anId = first.items[0].task_id;
let cursor = null;
for (let i = 0; i < 200; i++) { // 10 000 tasks deep
  cursor = JSON.parse((await get('/openapi/v1/tasks', { limit: 50, cursor })).body).next_cursor;
}
console.log(`runs per call: ${runs}`);
await time('cluster   GET /health?detail=true', () => get('/health', { detail: 'true' }, false));
await time('tasks     GET /openapi/v1/tasks?limit=50 (first page)', () => get('/openapi/v1/tasks', { limit: 50 }));
await time('tasks     … page 201 (cursor 10 000 tasks deep)', () => get('/openapi/v1/tasks', { limit: 50, cursor }));
await time('tasks     … status=FAILED (2 %)', () => get('/openapi/v1/tasks', { limit: 50, status: 'FAILED' }));
await time('tasks     … status=CANCELLED (1 %)', () => get('/openapi/v1/tasks', { limit: 50, status: 'CANCELLED' }));
await time('tasks     … status=DELAYED (1 %)', () => get('/openapi/v1/tasks', { limit: 50, status: 'DELAYED' }));
await time('tasks     … status=RUNNING (none: walks the tenant)', () => get('/openapi/v1/tasks', { limit: 50, status: 'RUNNING' }));
await time('tasks     … task_type=bench.type7 (5 %)', () => get('/openapi/v1/tasks', { limit: 50, task_type: 'bench.type7' }));
await time('tasks     … task_type + biz_key', () => get('/openapi/v1/tasks', { limit: 50, task_type: 'bench.type0', biz_key: 'order-500000' }));
await time('tasks     … schedule_id=4242 (0.2 %)', () => get('/openapi/v1/tasks', { limit: 50, schedule_id: '4242' }));
await time('tasks     … schedule_id=1 (no occurrence: walks the tenant)', () => get('/openapi/v1/tasks', { limit: 50, schedule_id: '1' }));
await time('detail    GET /openapi/v1/tasks/{id}', () => get(`/openapi/v1/tasks/${anId}`));
await time('detail    GET /openapi/v1/tasks/{id}/attempts', () => get(`/openapi/v1/tasks/${anId}/attempts`));
await time('detail    GET /openapi/v1/tasks/{id}/notifications', () => get(`/openapi/v1/tasks/${anId}/notifications`));
await time('schedules GET /openapi/v1/schedules?limit=50', () => get('/openapi/v1/schedules', { limit: 50 }));
await time('charts    GET /metrics', () => get('/metrics', {}, false));
