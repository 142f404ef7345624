import { strict as assert } from "node:assert";
import { AxProblemError, createAxClient, createAxSchedulesClient, ProblemCode, ScheduleStatus, TaskStatus } from "../src";

/**
 * Every call a TypeScript caller makes, against a live node, with nothing but the generated models and
 * methods: create (201, then 200 for the same biz_key), get, attempts, list, cancel (then 409), a batch,
 * a refusal read as a typed Problem, and a recurring schedule's life. Run by clients/java's TypeScriptClientIT; exits non-zero with
 * the failed check on stderr.
 *
 * Environment: AX_URL, AX_ACCESS_KEY, AX_SECRET, AX_CALLBACK_URL (an HTTP target the node may call).
 */
const MILLIS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function main(): Promise<number> {
  const env = (name: string) => process.env[name] ?? fail(`${name} is not set`);
  const tasks = createAxClient({ baseUrl: env("AX_URL"), accessKey: env("AX_ACCESS_KEY"), secret: env("AX_SECRET") });
  let checks = 0;

  // create, and the same biz_key again
  const first = await tasks.createTaskRaw({ taskRequest: {
    taskType: "client.ts", callbackUrl: env("AX_CALLBACK_URL"), payload: { user: 42 }, bizKey: "ts-1" } });
  assert.equal(first.raw.status, 201);
  const created = await first.value();
  assert.equal(created.duplicate, undefined);
  const again = await tasks.createTaskRaw({ taskRequest: {
    taskType: "client.ts", callbackUrl: env("AX_CALLBACK_URL"), bizKey: "ts-1" } });
  assert.equal(again.raw.status, 200);
  assert.equal((await again.value()).duplicate, true);
  checks++;

  // get, until the node has called the target
  let task = await tasks.getTask({ taskId: created.taskId });
  for (const deadline = Date.now() + 30_000; task.status !== TaskStatus.Success && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    task = await tasks.getTask({ taskId: created.taskId });
  }
  assert.equal(task.status, TaskStatus.Success, `task ${created.taskId} did not succeed`);
  assert.deepEqual(task.result, { handled: true });
  assert.ok(task.finishedAt instanceof Date);
  checks++;

  // attempts, with the millisecond times the contract promises
  const attempts = await tasks.listTaskAttemptsRaw({ taskId: created.taskId });
  const raw = await attempts.raw.clone().json();
  assert.match(raw.items[0].started_at, MILLIS);
  assert.match(raw.items[0].finished_at, MILLIS);
  const items = (await attempts.value()).items;
  assert.equal(items.length, 1);
  assert.equal(items[0].outcome, "SUCCESS");
  checks++;

  // list
  const page = await tasks.listTasks({ status: TaskStatus.Success, taskType: "client.ts", limit: 10 });
  assert.ok(page.items.some((t) => t.taskId === created.taskId), "listed");
  checks++;

  // cancel a task due in a month (delay_ms past 2^31), then once more
  const later = await tasks.createTask({ taskRequest: {
    taskType: "client.ts.cancel", processor: "nobody", delayMs: 30 * 24 * 3600 * 1000 } });
  assert.equal(later.status, TaskStatus.Delayed);
  assert.equal((await tasks.cancelTask({ taskId: later.taskId })).status, TaskStatus.Cancelled);
  const notCancellable = await refusal(tasks.cancelTask({ taskId: later.taskId }));
  assert.equal(notCancellable.status, 409);
  assert.equal(notCancellable.problem.code, ProblemCode.NotCancellable);
  assert.equal(notCancellable.problem.currentStatus, TaskStatus.Cancelled);
  checks++;

  // a batch: each element answered on its own
  const batch = await tasks.createTaskBatch({ taskBatchRequest: { tasks: [
    { taskType: "client.ts.batch", processor: "nobody", delayMs: 3_600_000 },
    { taskType: "client.ts.batch", processor: "nobody", priority: 12 },
  ] } });
  assert.equal(batch.results[0].statusCode, 201);
  assert.ok(batch.results[0].taskId);
  assert.equal(batch.results[1].statusCode, 400);
  assert.equal(batch.results[1].error?.code, ProblemCode.ValidationFailed);
  checks++;

  // a refusal, typed
  const invalid = await refusal(tasks.createTask({ taskRequest: { taskType: "client.ts.bad", processor: "nobody", priority: 12 } }));
  assert.equal(invalid.status, 400);
  assert.equal(invalid.problem.code, ProblemCode.ValidationFailed);
  assert.match(invalid.problem.detail, /priority/);
  const missing = await refusal(tasks.getTask({ taskId: "9999999999999999999" }));
  assert.equal(missing.problem.code, ProblemCode.NotFound);
  checks++;

  // a recurring schedule: create, read, pause, end, and a refusal once ended
  const schedules = createAxSchedulesClient({ baseUrl: env("AX_URL"), accessKey: env("AX_ACCESS_KEY"),
    secret: env("AX_SECRET") });
  const schedule = await schedules.createSchedule({ scheduleRequest: {
    cron: "0 2 * * *", timeZone: "Asia/Shanghai", task: { taskType: "client.ts.daily", processor: "nobody" } } });
  assert.equal(schedule.status, ScheduleStatus.Active);
  assert.equal(schedule.nextFireTimes.length, 5);
  // typescript-fetch leaves date-time array items as strings (single date-time members become Dates)
  assert.equal(new Date(String(schedule.nextFireTimes[0])).getUTCHours(), 18, "02:00 in Shanghai is 18:00 UTC");
  const read = await schedules.getSchedule({ scheduleId: schedule.scheduleId });
  assert.equal(read.timeZone, "Asia/Shanghai");
  assert.equal(read.everyMs, null);
  assert.equal((await schedules.pauseSchedule({ scheduleId: schedule.scheduleId })).status, ScheduleStatus.Paused);
  assert.equal((await schedules.deleteSchedule({ scheduleId: schedule.scheduleId })).status, ScheduleStatus.Ended);
  const ended = await refusal(schedules.resumeSchedule({ scheduleId: schedule.scheduleId }));
  assert.equal(ended.status, 409);
  assert.equal(ended.problem.code, ProblemCode.ScheduleStateConflict);
  checks++;

  console.log(`typescript client smoke: ${checks} checks passed against ${env("AX_URL")}`);
  return 0;
}

async function refusal(call: Promise<unknown>): Promise<AxProblemError> {
  try {
    await call;
  } catch (e) {
    if (e instanceof AxProblemError) {
      return e;
    }
    throw e;
  }
  throw new assert.AssertionError({ message: "the call succeeded; a refusal was expected" });
}

function fail(message: string): never {
  throw new Error(message);
}

main().then((code) => process.exit(code), (e) => {
  console.error("typescript client smoke FAILED:", e);
  process.exit(1);
});
