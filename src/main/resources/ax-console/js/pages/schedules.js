// Schedules: the caller's schedules a page at a time, with pause, resume, trigger now, and each one's
// next fire times (the preview the API computes within end_at and max_runs).

import { call } from '../api.js';
import { badge, h, replace, table, when } from '../dom.js';

/** Tenant data: needs an access key (an admin token is not a tenant). */
export const needs = 'tenant';

export function render(main, { params, ui }) {
  const status = h('select', { id: 'schedule-status' }, h('option', { value: '', text: 'any status' }),
    ['ACTIVE', 'PAUSED', 'ENDED'].map((s) => h('option', { value: s, text: s, selected: params.status === s })));
  const results = h('div', { id: 'schedule-results' });
  const more = h('button', { class: 'secondary', type: 'button', text: 'Load more', hidden: true });
  let cursor = null;

  async function page(reset) {
    if (reset) {
      cursor = null;
    }
    const answer = await ui.attempt(() => call('GET', '/openapi/v1/schedules',
      { query: { status: status.value, limit: 50, cursor } }));
    if (!answer) {
      return;
    }
    if (reset) {
      replace(results, table(['Schedule', 'Name', 'Recurrence', 'Status', 'Next fire times', 'Last fire', 'Runs',
        'Skipped / misfired', ''], [], { id: 'schedule-table' }));
      results.querySelector('tbody').replaceChildren();
    }
    const body = results.querySelector('tbody');
    answer.items.forEach((s) => body.append(row(s, ui, () => refreshRow(s.schedule_id))));
    if (!body.children.length) {
      body.append(h('tr', null, h('td', { class: 'empty', colspan: 9, text: 'No schedule.' })));
    }
    cursor = answer.next_cursor;
    more.hidden = !cursor;
  }

  async function refreshRow(id) {
    const s = await ui.attempt(() => call('GET', `/openapi/v1/schedules/${id}`));
    const old = results.querySelector(`tr[data-schedule-id="${id}"]`);
    if (s && old) {
      old.replaceWith(row(s, ui, () => refreshRow(id)));
    }
  }

  status.addEventListener('change', () => page(true));
  more.addEventListener('click', () => page(false));
  main.append(h('section', { class: 'page' },
    h('div', { class: 'page-head' }, h('h1', { text: 'Schedules' }), status,
      h('button', { class: 'secondary', type: 'button', text: 'Refresh', on: { click: () => page(true) } })),
    results, more));
  page(true);
}

function recurrence(s) {
  if (s.cron) {
    return `cron ${s.cron} (${s.time_zone})`;
  }
  return s.every_ms ? `every ${s.every_ms / 1000} s` : `${s.after_ms / 1000} s after the previous run ends`;
}

function row(s, ui, refresh) {
  const act = (label, verb, cls, enabled) => h('button', { type: 'button', class: `small ${cls}`, text: label,
    disabled: !enabled, on: { click: async () => {
      const done = await ui.attempt(() => call('POST', `/openapi/v1/schedules/${s.schedule_id}/${verb}`));
      if (done) {
        ui.showNotice(verb === 'trigger' ? `Schedule ${s.schedule_id} triggered: task ${done.task_id}.`
          : `Schedule ${s.schedule_id}: ${verb}d.`);
        refresh();
      }
    } } });
  return h('tr', { dataset: { scheduleId: s.schedule_id } },
    h('td', null, h('a', { class: 'mono', href: `#/tasks?schedule_id=${s.schedule_id}`, title: 'its occurrences',
      text: s.schedule_id })),
    h('td', { text: s.name || '' }), h('td', { text: recurrence(s) }), h('td', { class: 'status' }, badge(s.status)),
    h('td', { class: 'fire-times' }, (s.next_fire_times || []).length
      ? h('ol', null, s.next_fire_times.map((t) => h('li', null, when(t)))) : h('span', { class: 'muted', text: '—' })),
    h('td', null, when(s.last_fire_time)), h('td', { class: 'num', text: s.runs }),
    h('td', { class: 'num', text: `${s.skipped} / ${s.misfired}` }),
    h('td', { class: 'actions' },
      act('Pause', 'pause', 'pause secondary', s.status === 'ACTIVE'),
      act('Resume', 'resume', 'resume secondary', s.status === 'PAUSED'),
      act('Trigger now', 'trigger', 'trigger', s.status !== 'ENDED')));
}
