// Tasks: search (by id, or by type, status, biz_key, schedule — the list endpoint's filters, a cursor
// page at a time), submit a task, and one task's detail with its attempts, webhook tries and cancel.

import { call } from '../api.js';
import { badge, facts, field, h, replace, table, when } from '../dom.js';

/** Tenant data: needs an access key (an admin token is not a tenant). */
export const needs = 'tenant';

const STATUSES = ['CREATED', 'DELAYED', 'READY', 'DISPATCHING', 'RUNNING', 'SUCCESS', 'FAILED', 'CANCELLED', 'SKIPPED'];
const TERMINAL = new Set(['SUCCESS', 'FAILED', 'CANCELLED', 'SKIPPED']);
const CANCELLABLE = new Set(['CREATED', 'DELAYED', 'READY']);
const PAGE = 50;

export function render(main, ctx) {
  return ctx.id ? detail(main, ctx.id, ctx.ui) : list(main, ctx.params, ctx.ui);
}

function input(id, props) {
  return h('input', { id, name: id, spellcheck: 'false', ...props });
}

function list(main, params, ui) {
  const f = {
    id: input('search-task-id', { placeholder: 'task id', inputmode: 'numeric', value: params.task_id || '' }),
    type: input('search-task-type', { placeholder: 'e.g. coupon.grant', value: params.task_type || '' }),
    status: h('select', { id: 'search-status', name: 'status' }, h('option', { value: '', text: 'any' }),
      STATUSES.map((s) => h('option', { value: s, text: s, selected: params.status === s }))),
    bizKey: input('search-biz-key', { placeholder: 'needs a task type', value: params.biz_key || '' }),
    schedule: input('search-schedule-id', { placeholder: 'schedule id', inputmode: 'numeric', value: params.schedule_id || '' }),
  };
  const results = h('div', { id: 'task-results' });
  const more = h('button', { id: 'task-more', class: 'secondary', type: 'button', text: 'Load more', hidden: true });
  let cursor = null;
  let query = {};

  const search = h('form', { class: 'card filters', id: 'task-search', on: { submit: (ev) => {
    ev.preventDefault();
    const id = f.id.value.trim();
    if (id) {
      location.hash = `#/tasks/${encodeURIComponent(id)}`;
      return;
    }
    const q = { task_type: f.type.value.trim(), status: f.status.value, biz_key: f.bizKey.value.trim(),
      schedule_id: f.schedule.value.trim() };
    const hash = `#/tasks?${new URLSearchParams(Object.entries(q).filter(([, v]) => v))}`;
    if (location.hash === hash) {
      first(q);
    } else {
      location.hash = hash; // re-renders with these filters (and makes the search a link)
    }
  } } },
  field('Task id', f.id), field('Task type', f.type), field('Status', f.status), field('biz_key', f.bizKey),
  field('Schedule id', f.schedule), h('button', { id: 'search-submit', type: 'submit', text: 'Search' }));

  async function page() {
    const answer = await ui.attempt(() => call('GET', '/openapi/v1/tasks',
      { query: { ...query, limit: PAGE, cursor } }));
    if (!answer) {
      return;
    }
    let body = results.querySelector('tbody');
    if (!body || !cursor) {
      replace(results, table(['Task', 'Type', 'Status', 'Trigger time', 'Target', 'Retries', 'Created'], [],
        { id: 'task-table' }));
      body = results.querySelector('tbody');
      body.replaceChildren();
    }
    answer.items.forEach((t) => body.append(row(t)));
    if (!body.children.length) {
      body.append(h('tr', null, h('td', { class: 'empty', colspan: 7, text: 'No task matches.' })));
    }
    cursor = answer.next_cursor;
    more.hidden = !cursor;
  }

  function first(q) {
    query = q;
    cursor = null;
    page();
  }

  more.addEventListener('click', page);
  const submitForm = submit(ui);
  main.append(h('section', { class: 'page' },
    h('div', { class: 'page-head' }, h('h1', { text: 'Tasks' }),
      h('button', { id: 'submit-open', class: 'secondary', type: 'button', text: 'Submit a task…',
        on: { click: () => { submitForm.hidden = !submitForm.hidden; } } })),
    submitForm, search, results, more));
  first(Object.fromEntries(['task_type', 'status', 'biz_key', 'schedule_id'].filter((k) => params[k]).map((k) => [k, params[k]])));
}
function row(t) {
  return h('tr', { dataset: { taskId: t.task_id } },
    h('td', null, h('a', { href: `#/tasks/${t.task_id}`, class: 'mono', text: t.task_id })),
    h('td', { text: t.task_type }), h('td', null, badge(t.status)), h('td', null, when(t.trigger_time)),
    h('td', { class: 'ellipsis', title: t.callback_url || t.processor, text: t.callback_url || `processor ${t.processor}` }),
    h('td', { class: 'num', text: t.retry_count === undefined ? '' : t.retry_count }),
    h('td', null, when(t.created_at)));
}

function submit(ui) {
  const f = {
    type: input('submit-task-type', { required: true, placeholder: 'e.g. coupon.grant', pattern: '[A-Za-z0-9._:\\-]{1,128}' }),
    whenKind: h('select', { id: 'submit-when' }, h('option', { value: 'delay', text: 'after a delay (ms)' }),
      h('option', { value: 'time', text: 'at a time (local)' }), h('option', { value: 'now', text: 'now' })),
    delay: input('submit-delay-ms', { type: 'number', min: 0, value: '0' }),
    time: input('submit-trigger-time', { type: 'datetime-local', step: '1', hidden: true }),
    targetKind: h('select', { id: 'submit-target' }, h('option', { value: 'url', text: 'HTTP callback_url' }),
      h('option', { value: 'processor', text: 'executor processor' })),
    url: input('submit-callback-url', { type: 'url', placeholder: 'https://…' }),
    processor: input('submit-processor', { placeholder: 'processor name', hidden: true }),
    payload: h('textarea', { id: 'submit-payload', rows: 4, spellcheck: 'false', placeholder: '{"user": 42}' }),
    bizKey: input('submit-biz-key', { placeholder: 'optional' }),
    maxRetry: input('submit-max-retry', { type: 'number', min: 0, max: 10, placeholder: '2' }),
    notify: input('submit-notify-url', { type: 'url', placeholder: 'optional webhook' }),
  };
  const result = h('p', { id: 'submit-result', class: 'muted' });
  const sync = () => {
    f.delay.hidden = f.whenKind.value !== 'delay';
    f.time.hidden = f.whenKind.value !== 'time';
    f.url.hidden = f.targetKind.value !== 'url';
    f.processor.hidden = f.targetKind.value !== 'processor';
  };
  f.whenKind.addEventListener('change', sync);
  f.targetKind.addEventListener('change', sync);
  const form = h('form', { class: 'card', id: 'submit-form', hidden: true, on: { submit: async (ev) => {
    ev.preventDefault();
    const body = { task_type: f.type.value.trim() };
    if (f.whenKind.value === 'delay') {
      body.delay_ms = Number(f.delay.value || 0);
    } else if (f.whenKind.value === 'time') {
      const t = new Date(f.time.value);
      if (Number.isNaN(t.getTime())) {
        ui.showError({ title: 'Invalid form', detail: 'pick a trigger time' });
        return;
      }
      body.trigger_time = t.toISOString();
    }
    if (f.targetKind.value === 'url') {
      body.callback_url = f.url.value.trim();
    } else {
      body.processor = f.processor.value.trim();
    }
    if (f.payload.value.trim()) {
      try {
        body.payload = JSON.parse(f.payload.value);
      } catch (e) {
        ui.showError({ title: 'Invalid form', detail: `payload is not JSON: ${e.message}` });
        return;
      }
    }
    if (f.bizKey.value.trim()) {
      body.biz_key = f.bizKey.value.trim();
    }
    if (f.maxRetry.value !== '') {
      body.max_retry = Number(f.maxRetry.value);
    }
    if (f.notify.value.trim()) {
      body.notify_url = f.notify.value.trim();
    }
    const created = await ui.attempt(() => call('POST', '/openapi/v1/tasks', { body }));
    if (created) {
      replace(result, created.duplicate ? 'Already submitted (same biz_key): ' : 'Created ',
        h('a', { href: `#/tasks/${created.task_id}`, id: 'submit-created', class: 'mono', text: created.task_id }),
        ' ', badge(created.status), ' due ', when(created.trigger_time));
    }
  } } },
  h('h2', { text: 'Submit a task' }),
  h('div', { class: 'row' }, field('Task type', f.type), field('When', h('span', { class: 'pair' }, f.whenKind, f.delay, f.time))),
  h('div', { class: 'row' }, field('Target', h('span', { class: 'pair' }, f.targetKind, f.url, f.processor))),
  field('Payload (JSON)', f.payload),
  h('div', { class: 'row' }, field('biz_key', f.bizKey), field('max_retry', f.maxRetry), field('notify_url', f.notify)),
  h('button', { id: 'submit-send', type: 'submit', text: 'Submit' }), result);
  return form;
}

function detail(main, id, ui) {
  const body = h('div', { id: 'task-detail' }, h('p', { class: 'muted', text: 'Loading…' }));
  main.append(h('section', { class: 'page' },
    h('div', { class: 'page-head' }, h('h1', null, 'Task ', h('span', { class: 'mono', text: id })),
      h('a', { href: '#/tasks', class: 'button secondary', text: '← Tasks' })), body));
  let timer = null;
  let stopped = false;

  async function load() {
    const task = await ui.attempt(() => call('GET', `/openapi/v1/tasks/${encodeURIComponent(id)}`));
    if (stopped) {
      return;
    }
    if (!task) {
      replace(body, h('p', { class: 'muted', text: 'Could not load this task.' }));
      return;
    }
    const [attempts, notes] = await Promise.all([
      call('GET', `/openapi/v1/tasks/${task.task_id}/attempts`).catch((e) => e),
      call('GET', `/openapi/v1/tasks/${task.task_id}/notifications`).catch((e) => e)]);
    if (stopped) {
      return;
    }
    replace(body, view(task, attempts, notes, ui, load));
    clearTimeout(timer);
    if (!TERMINAL.has(task.status)) {
      timer = setTimeout(load, 1000); // follow it until it ends
    }
  }

  load();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function view(t, attempts, notes, ui, reload) {
  const cancel = h('button', { id: 'task-cancel', class: 'danger', type: 'button', text: 'Cancel task',
    disabled: !CANCELLABLE.has(t.status), title: CANCELLABLE.has(t.status) ? '' : 'only a task not yet dispatched can be cancelled',
    on: { click: async () => {
      if (!window.confirm(`Cancel task ${t.task_id}?`)) {
        return;
      }
      const done = await ui.attempt(() => call('POST', `/openapi/v1/tasks/${t.task_id}/cancel`));
      if (done) {
        ui.showNotice(`Task ${t.task_id} cancelled.`);
        reload();
      }
    } } });
  return [
    h('div', { class: 'actions' }, cancel),
    h('div', { class: 'cards' },
      h('div', { class: 'card' }, h('h2', { text: 'State' }), facts([
        ['Status', badge(t.status), 'task-status'],
        ['Type', t.task_type, 'task-type'],
        ['Trigger time', when(t.trigger_time)],
        ['Retries', `${t.retry_count} of ${t.max_retry}`],
        ['Last node', t.last_run_node],
        ['Created', when(t.created_at)], ['Started', when(t.started_at)], ['Finished', when(t.finished_at)],
        t.error ? ['Error', h('span', { class: 'warn', text: t.error })] : null,
        t.schedule_id ? ['Schedule', h('a', { href: `#/tasks?schedule_id=${t.schedule_id}`, text: t.schedule_id })] : null,
      ])),
      h('div', { class: 'card' }, h('h2', { text: 'Request' }), facts([
        ['Target', t.callback_url || `processor ${t.processor}`],
        ['biz_key', t.biz_key], ['Priority', t.priority], ['Timeout', `${t.timeout_ms} ms`],
        ['notify_url', t.notify_url], ['Shards', t.shard_total > 1 ? t.shard_total : null],
        ['Payload', h('pre', { text: JSON.stringify(t.payload, null, 2) })],
        t.result !== null && t.result !== undefined ? ['Result', h('pre', { text: JSON.stringify(t.result, null, 2) })] : null,
      ]))),
    h('h2', { text: 'Attempts' }),
    attempts instanceof Error ? h('p', { class: 'warn', text: attempts.message }) : table(
      ['#', 'Outcome', 'Node', 'Executor', 'Started', 'Finished', 'Error'], attempts.items.map((a) =>
        h('tr', null, h('td', { text: a.attempt }), h('td', null, badge(a.outcome)), h('td', { text: a.node_id }),
          h('td', { text: a.executor_id || '' }), h('td', null, when(a.started_at)), h('td', null, when(a.finished_at)),
          h('td', { text: a.error || '' }))), { id: 'task-attempts' }),
    h('h2', { text: 'Webhook deliveries' }),
    notes instanceof Error ? h('p', { class: 'warn', text: notes.message }) : !notes.notify_url
      ? h('p', { class: 'muted', text: 'No notify_url: nothing is delivered.' })
      : [facts([['notify_url', notes.notify_url], ['State', notes.state ? badge(notes.state) : 'waiting for the task to end'],
        ['Tries', notes.tries], ['Next try', notes.next_attempt_at ? when(notes.next_attempt_at) : null]]),
      table(['Try', 'Outcome', 'HTTP', 'Node', 'Started', 'Finished', 'Error'], notes.items.map((n) =>
        h('tr', null, h('td', { text: n.try }), h('td', null, badge(n.outcome)), h('td', { text: n.http_status ?? '' }),
          h('td', { text: n.node_id }), h('td', null, when(n.started_at)), h('td', null, when(n.finished_at)),
          h('td', { text: n.error || '' }))), { id: 'task-notifications' })],
  ];
}
