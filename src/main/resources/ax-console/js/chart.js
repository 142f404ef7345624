// A small SVG line chart: a few named series over time, drawn from scratch on each update.

import { h } from './dom.js';

const COLOURS = ['#2563eb', '#16a34a', '#dc2626', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#4b5563'];
const W = 640;
const H = 220;
const PAD = { left: 56, right: 12, top: 12, bottom: 24 };

/**
 * Draws into container. series: [{name, points: [[timeMs, value|null], ...]}]; unit: appended to the
 * axis labels; format: value → label.
 */
export function drawLines(container, series, { format = (v) => v.toFixed(1), windowMs } = {}) {
  const all = series.flatMap((s) => s.points).filter((p) => p[1] !== null && Number.isFinite(p[1]));
  const now = Date.now();
  const x0 = now - windowMs;
  const yMax = Math.max(1e-9, ...all.map((p) => p[1])) * 1.1;
  const x = (t) => PAD.left + ((t - x0) / windowMs) * (W - PAD.left - PAD.right);
  const y = (v) => H - PAD.bottom - (v / yMax) * (H - PAD.top - PAD.bottom);
  const grid = [0, 0.25, 0.5, 0.75, 1].map((f) => h('g', null,
    h('line', { x1: PAD.left, x2: W - PAD.right, y1: y(yMax * f), y2: y(yMax * f), class: 'grid-line' }),
    h('text', { x: PAD.left - 6, y: y(yMax * f) + 4, 'text-anchor': 'end', class: 'axis', text: format(yMax * f) })));
  const ticks = [0, 0.5, 1].map((f) => h('text', { x: x(x0 + windowMs * f), y: H - 6, 'text-anchor': 'middle',
    class: 'axis', text: f === 1 ? 'now' : `−${Math.round((windowMs * (1 - f)) / 1000)} s` }));
  const lines = series.map((s, i) => {
    const segments = [];
    let current = [];
    for (const [t, v] of s.points) {
      if (v === null || !Number.isFinite(v) || t < x0) {
        if (current.length) segments.push(current);
        current = [];
      } else {
        current.push(`${x(t).toFixed(1)},${y(v).toFixed(1)}`);
      }
    }
    if (current.length) segments.push(current);
    return segments.map((seg) => h('polyline', { points: seg.join(' '), fill: 'none', stroke: COLOURS[i % COLOURS.length],
      'stroke-width': 2 }));
  });
  const legend = h('div', { class: 'legend' }, series.map((s, i) => {
    const last = [...s.points].reverse().find((p) => p[1] !== null && Number.isFinite(p[1]));
    return h('span', { class: 'legend-item' }, h('span', { class: `swatch c${i % COLOURS.length}` }),
      `${s.name}: ${last ? format(last[1]) : '—'}`);
  }));
  container.replaceChildren(
    h('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img' }, grid, ticks, lines), legend);
}
