// Reading Prometheus text (/metrics) and the figures the charts draw: histogram quantiles over the
// interval between two scrapes, and counter rates. Pure functions (no DOM), so they can be checked alone.

/** Every sample of a Prometheus text exposition: [{name, labels: {k: v}, value}]. Comments are skipped. */
export function parsePrometheus(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) {
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) {
      continue;
    }
    const labels = {};
    for (const l of (m[3] || '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]] = l[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    }
    out.push({ name: m[1], labels, value: m[4] === '+Inf' ? Infinity : Number(m[4]) });
  }
  return out;
}

/** Cumulative buckets of a histogram, summed over the other labels: [{le, count}] sorted by le. */
export function buckets(samples, name) {
  const byLe = new Map();
  for (const s of samples) {
    if (s.name === `${name}_bucket`) {
      const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
      byLe.set(le, (byLe.get(le) || 0) + s.value);
    }
  }
  return [...byLe.entries()].sort((a, b) => a[0] - b[0]).map(([le, count]) => ({ le, count }));
}

/** Bucket counts of what arrived between two scrapes (now − before); a reset (a restart) counts from 0. */
export function delta(now, before) {
  const old = new Map((before || []).map((b) => [b.le, b.count]));
  return now.map((b) => {
    const d = b.count - (old.get(b.le) || 0);
    return { le: b.le, count: d < 0 ? b.count : d };
  });
}

/**
 * The q-quantile (0..1) of cumulative buckets, interpolated linearly inside the bucket it falls in, as
 * Prometheus's histogram_quantile does; null when the buckets are empty. Beyond the last finite bound
 * it answers that bound.
 */
export function quantile(q, cumulative) {
  if (!cumulative.length) {
    return null;
  }
  const total = cumulative[cumulative.length - 1].count;
  if (!(total > 0)) {
    return null;
  }
  const rank = q * total;
  let lowerLe = 0;
  let lowerCount = 0;
  for (const b of cumulative) {
    if (b.count >= rank) {
      if (b.le === Infinity) {
        return lowerLe;
      }
      const inBucket = b.count - lowerCount;
      return inBucket <= 0 ? b.le : lowerLe + ((b.le - lowerLe) * (rank - lowerCount)) / inBucket;
    }
    lowerLe = b.le;
    lowerCount = b.count;
  }
  return lowerLe;
}

/** Sum of a counter's samples grouped by one label: {labelValue: sum}. */
export function sumBy(samples, name, label) {
  const out = {};
  for (const s of samples) {
    if (s.name === name) {
      const key = s.labels[label] ?? '';
      out[key] = (out[key] || 0) + s.value;
    }
  }
  return out;
}
