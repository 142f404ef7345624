// Building DOM without innerHTML: every value the API returns goes in as text, so nothing it holds
// (a task's payload, an error message) can become markup or script.

/**
 * h('tr', {class: 'x', dataset: {id: '1'}, on: {click: f}}, 'text', child, [more]) — an element.
 * Props: class, id, text, title, hidden, disabled, type, value, href, placeholder, for, name, checked,
 * selected, dataset, attrs (other attributes), on (event listeners). Children: nodes, strings, numbers,
 * arrays of them; null/undefined/false are skipped.
 */
export function h(tag, props, ...children) {
  const svg = ['svg', 'path', 'line', 'polyline', 'text', 'g', 'rect', 'circle'].includes(tag);
  const el = svg ? document.createElementNS('http://www.w3.org/2000/svg', tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) {
      continue;
    }
    if (k === 'class') {
      el.setAttribute('class', v);
    } else if (k === 'text') {
      el.textContent = String(v);
    } else if (k === 'dataset') {
      Object.entries(v).forEach(([dk, dv]) => { el.dataset[dk] = dv; });
    } else if (k === 'on') {
      Object.entries(v).forEach(([ev, fn]) => el.addEventListener(ev, fn));
    } else if (k === 'attrs') {
      Object.entries(v).forEach(([ak, av]) => el.setAttribute(ak, String(av)));
    } else if (['value', 'checked', 'selected', 'disabled', 'hidden'].includes(k) && !svg) {
      el[k] = v;
    } else {
      el.setAttribute(k === 'htmlFor' ? 'for' : k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) {
      continue;
    }
    if (Array.isArray(c)) {
      append(el, c);
    } else {
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
  }
}

/** Replaces everything inside el. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A time as the browser's local time, with the ISO value in its tooltip; '—' for none. */
export function when(iso) {
  if (!iso) {
    return h('span', { class: 'muted', text: '—' });
  }
  const d = new Date(iso);
  return h('time', { datetime: iso, title: iso, text: `${d.toLocaleString()} (${relative(d.getTime() - Date.now())})` });
}

/** "in 5 s", "3 min ago". */
export function relative(deltaMs) {
  const abs = Math.abs(deltaMs);
  const unit = abs < 60_000 ? [1000, 's'] : abs < 3_600_000 ? [60_000, 'min'] : abs < 86_400_000
    ? [3_600_000, 'h'] : [86_400_000, 'd'];
  const n = Math.round(abs / unit[0]);
  return deltaMs >= 0 ? `in ${n} ${unit[1]}` : `${n} ${unit[1]} ago`;
}

/** A status word as a coloured badge. */
export function badge(status) {
  return h('span', { class: `badge s-${String(status).toLowerCase()}`, text: status });
}

/** A two-column table of label → value. */
export function facts(rows) {
  return h('table', { class: 'facts' }, h('tbody', null, rows.filter(Boolean).map(([label, value, id]) =>
    h('tr', null, h('th', { text: label }), h('td', { id }, value === null || value === undefined || value === ''
      ? h('span', { class: 'muted', text: '—' }) : value)))));
}

/** A table from column titles and rows of cells. */
export function table(columns, rows, props) {
  return h('table', { class: 'grid', ...(props || {}) },
    h('thead', null, h('tr', null, columns.map((c) => h('th', { text: c })))),
    h('tbody', null, rows.length ? rows : h('tr', null, h('td', { class: 'empty', colspan: columns.length, text: 'Nothing here.' }))));
}

/** A labelled form field; the input gets the id. */
export function field(label, input, hint) {
  return h('label', { class: 'field', for: input.id }, h('span', { class: 'label', text: label }), input,
    hint ? h('span', { class: 'hint', text: hint }) : null);
}
