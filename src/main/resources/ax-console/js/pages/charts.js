// Live charts from this node's /metrics, scraped every few seconds and drawn in the page:
// lateness (ax_schedule_delay percentiles over each interval) and throughput by outcome
// (ax_execute_total per second). The leader records dispatch lateness; other nodes show what they ran.

import { unsigned } from '../api.js';
import { drawLines } from '../chart.js';
import { h } from '../dom.js';
import { buckets, delta, parsePrometheus, quantile, sumBy } from '../metrics.js';

const SCRAPE_MS = 3000;
const WINDOW_MS = 5 * 60 * 1000;
const DELAY = 'ax_schedule_delay_seconds';
const EXECUTED = 'ax_execute_total';

export function render(main, { ui }) {
  const lateness = h('div', { id: 'chart-lateness', class: 'chart-box' }, h('p', { class: 'muted', text: 'Waiting for two scrapes…' }));
  const throughput = h('div', { id: 'chart-throughput', class: 'chart-box' }, h('p', { class: 'muted', text: 'Waiting for two scrapes…' }));
  const node = h('span', { class: 'muted' });
  main.append(h('section', { class: 'page' },
    h('div', { class: 'page-head' }, h('h1', { text: 'Live charts' }), node),
    h('p', { class: 'muted', text: `Scraped from this node's /metrics every ${SCRAPE_MS / 1000} s; the last five minutes, `
      + 'kept in this page only. Lateness is recorded where tasks are dispatched (the leader).' }),
    h('div', { class: 'card' }, h('h2', { text: 'Lateness (due → handed over), ms' }), lateness),
    h('div', { class: 'card' }, h('h2', { text: 'Throughput by outcome, tasks/s' }), throughput)));

  const p = { p50: [], p95: [], p99: [] };
  const rates = {}; // outcome → points
  let previous = null;
  let stopped = false;
  const openedAt = Date.now();

  async function scrape() {
    const answer = await ui.attempt(() => unsigned('/metrics'));
    if (stopped || !answer || typeof answer.body !== 'string') {
      return;
    }
    const now = Date.now();
    const samples = parsePrometheus(answer.body);
    const current = { at: now, delay: buckets(samples, DELAY), executed: sumBy(samples, EXECUTED, 'outcome') };
    if (previous) {
      const d = delta(current.delay, previous.delay);
      for (const [name, q] of [['p50', 0.5], ['p95', 0.95], ['p99', 0.99]]) {
        const v = quantile(q, d);
        p[name].push([now, v === null ? null : v * 1000]);
      }
      const seconds = (now - previous.at) / 1000;
      for (const [outcome, total] of Object.entries(current.executed)) {
        const before = previous.executed[outcome] ?? 0;
        (rates[outcome] ||= []).push([now, Math.max(0, total - before) / seconds]);
      }
      for (const list of [...Object.values(p), ...Object.values(rates)]) {
        while (list.length && list[0][0] < now - WINDOW_MS) list.shift();
      }
      // the axis spans what this page has seen (at least a minute), up to five minutes
      const span = Math.min(WINDOW_MS, Math.max(60_000, now - openedAt));
      drawLines(lateness, Object.entries(p).map(([name, points]) => ({ name, points })),
        { windowMs: span, format: (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(1)) });
      drawLines(throughput, Object.entries(rates).sort().map(([name, points]) => ({ name, points })),
        { windowMs: span, format: (v) => v.toFixed(1) });
    }
    previous = current;
  }

  scrape();
  const timer = setInterval(scrape, SCRAPE_MS);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
