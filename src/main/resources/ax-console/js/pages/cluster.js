// Cluster: this node, the leader lease (holder, epoch, expiry), the nodes alive now, and the executors
// the leader knows (state, threads, backlog, outstanding, throughput). From /health?detail=true,
// refreshed every 5 s; throughput is the change of each executor's `executed` count between refreshes.

import { unsigned } from '../api.js';
import { badge, facts, h, relative, replace, table, when } from '../dom.js';

const REFRESH_MS = 5000;

export function render(main, { ui }) {
  const body = h('div', { id: 'cluster' }, h('p', { class: 'muted', text: 'Loading…' }));
  const stamp = h('span', { class: 'muted', id: 'cluster-updated' });
  main.append(h('section', { class: 'page' },
    h('div', { class: 'page-head' }, h('h1', { text: 'Cluster' }), stamp,
      h('button', { class: 'secondary', type: 'button', text: 'Refresh', on: { click: () => load() } })),
    body));
  const previous = new Map(); // executor_id → {executed, at}
  let stopped = false;

  async function load() {
    const answer = await ui.attempt(() => unsigned('/health?detail=true'));
    if (stopped || !answer) {
      return;
    }
    replace(body, view(answer.body, previous));
    stamp.textContent = `updated ${new Date().toLocaleTimeString()}`;
  }

  load();
  const timer = setInterval(load, REFRESH_MS);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

function view(health, previous) {
  const lease = health.lease || null;
  const leaderHolder = lease && lease.held ? lease.holder : null;
  const nodes = health.nodes || [];
  const now = Date.now();
  return [
    h('div', { class: 'cards' },
      h('div', { class: 'card' }, h('h2', { text: 'This node' }), facts([
        ['Node', health.node_id, 'cluster-node'],
        ['Status', badge(health.status), 'cluster-status'],
        ['Role', h('span', { class: health.role === 'leader' ? 'leader' : '', text: health.role }), 'cluster-role'],
        ['Epoch seen', health.epoch, 'cluster-epoch'],
        ['Checks', Object.entries(health.checks || {}).map(([k, v]) => h('span', { class: 'check' }, `${k} `, badge(v)))],
        health.reason ? ['Reason', health.reason] : null,
      ])),
      h('div', { class: 'card' }, h('h2', { text: 'Leader lease' }), lease ? facts([
        ['Leader', h('span', { class: 'leader', text: lease.held ? lease.holder : `none (last: ${lease.holder})` }), 'lease-holder'],
        ['Leader node', health.leader_node, 'leader-node'],
        ['Epoch', lease.epoch, 'lease-epoch'],
        ['Expires', lease.held ? when(lease.expires_at) : h('span', { class: 'warn', text: `expired ${relative(Date.parse(lease.expires_at) - now)}` }), 'lease-expires'],
        ['Acquired', when(lease.acquired_at)],
      ]) : h('p', { class: 'muted', text: health.lease_error || 'No node has held the lease yet.' }))),
    h('h2', { text: `Nodes (${nodes.length})` }),
    table(['Node', 'Id slot', 'Slot renewed until', ''], nodes.map((n) =>
      h('tr', { dataset: { holder: n.holder } }, h('td', { text: n.holder }), h('td', { text: n.slot }),
        h('td', null, when(n.expires_at)),
        h('td', null, n.holder === leaderHolder ? h('span', { class: 'badge s-leader', text: 'leader' }) : null))),
    { id: 'nodes' }),
    health.nodes_error ? h('p', { class: 'warn', text: health.nodes_error }) : null,
    (health.cluster_nodes || []).length ? h('p', { class: 'muted',
      text: `Cluster manager members: ${health.cluster_nodes.length}` }) : null,
    executors(health, previous, now),
  ];
}

function executors(health, previous, now) {
  if (!health.executors) {
    return [h('h2', { text: 'Executors' }),
      h('p', { class: 'muted', text: health.executors_error || 'No executor information (no leader answered).' })];
  }
  const rows = health.executors.map((e) => {
    const before = previous.get(e.executor_id);
    const rate = before && now > before.at ? ((e.executed - before.executed) * 1000) / (now - before.at) : null;
    previous.set(e.executor_id, { executed: e.executed, at: now });
    return h('tr', { dataset: { executor: e.executor_id } },
      h('td', { text: e.executor_id }), h('td', null, badge(e.state)), h('td', { text: e.zone || '' }),
      h('td', { text: (e.processors || []).join(', ') }),
      h('td', { class: 'num', text: `${e.free_threads ?? '?'} / ${e.threads}` }),
      h('td', { class: 'num', text: e.backlog ?? '' }), h('td', { class: 'num', text: `${e.outstanding} / ${e.buffer}` }),
      h('td', { class: 'num', text: rate === null ? '…' : rate.toFixed(1) }),
      h('td', { class: 'num', text: `${e.executed} / ${e.failed}` }),
      h('td', { class: 'num', text: e.mean_duration_ms === undefined ? '' : Number(e.mean_duration_ms).toFixed(1) }),
      h('td', { class: 'num', text: e.cpu_load === undefined || e.cpu_load < 0 ? '' : `${Math.round(e.cpu_load * 100)} %` }),
      h('td', { class: 'num', text: `${(e.last_heartbeat_ms_ago / 1000).toFixed(1)} s` }));
  });
  return [h('h2', { text: `Executors (${health.executors.length}) · ready queue ${health.ready_queue ?? 0}` }),
    table(['Executor', 'State', 'Zone', 'Processors', 'Free / threads', 'Backlog', 'Outstanding / buffer',
      'Tasks/s', 'Executed / failed', 'Mean ms', 'CPU', 'Heartbeat'], rows, { id: 'executors' })];
}
