// Administration, with an admin token (/admin/v1): tenants (list, create), access keys (list by
// tenant, create, rotate with a grace period, disable, enable, delete) and the audit log (newest first,
// older pages by next_before). Tabs: #/admin/tenants, #/admin/keys?tenant_id=…, #/admin/audit.
//
// A secret comes back once, when a key is created or rotated. It is shown in one panel only, as text,
// until the panel is dismissed or the page left: then its text node is emptied, the panel removed and
// the variable holding it dropped. It never goes into storage, a URL, the error banner or a log.

import { call } from '../api.js';
import { badge, facts, field, h, replace, table, when } from '../dom.js';

export const needs = 'admin';

const TABS = [['tenants', 'Tenants'], ['keys', 'Access keys'], ['audit', 'Audit log']];
const MAX_LIST = 1000; // the admin API's largest limit; tenants and keys are not paged
const TENANT_ID = '[A-Za-z0-9._:\\-]{1,64}';
const RATE_LIMIT = '[0-9]+(\\.[0-9]+)?(/[0-9]+(\\.[0-9]+)?)?';
const MAX_GRACE_S = 604800;

export function render(main, { id, params, ui }) {
  const tab = TABS.some(([t]) => t === id) ? id : 'tenants';
  const oneTime = secretPanel();
  const content = h('div', { id: `admin-${tab}` });
  main.append(h('section', { class: 'page' },
    h('div', { class: 'page-head' }, h('h1', { text: 'Administration' }),
      h('nav', { class: 'tabs', attrs: { 'aria-label': 'Administration' } }, TABS.map(([t, label]) =>
        h('a', { href: `#/admin/${t}`, id: `admin-tab-${t}`, class: t === tab ? 'active' : '', text: label })))),
    oneTime.slot, content));
  if (tab === 'tenants') {
    tenants(content, ui);
  } else if (tab === 'keys') {
    keys(content, params, ui, oneTime);
  } else {
    audit(content, params, ui);
  }
  return () => oneTime.dismiss(); // leaving the page forgets a secret still shown
}

// ---- the one-time secret panel

function secretPanel() {
  const slot = h('div', { id: 'secret-slot' });
  let forget = null;

  function dismiss() {
    if (forget) {
      forget();
      forget = null;
    }
  }

  /** Shows a key's secret once; extra: more [label, value] rows for the panel. */
  function show(title, accessKey, secret, extra) {
    dismiss();
    let held = secret;
    const value = h('code', { id: 'secret-value', class: 'secret', text: held });
    const copied = h('span', { id: 'secret-copied', class: 'muted', attrs: { 'aria-live': 'polite' } });
    const copy = h('button', { id: 'secret-copy', class: 'secondary small', type: 'button', text: 'Copy', on: { click: async () => {
      if (held === null) {
        return;
      }
      try {
        await navigator.clipboard.writeText(held);
        copied.textContent = 'Copied to the clipboard.';
      } catch (e) {
        // no clipboard access (an insecure origin, or denied): select it for Ctrl+C instead
        window.getSelection().selectAllChildren(value);
        copied.textContent = document.execCommand('copy') ? 'Copied to the clipboard.' : 'Selected: press Ctrl+C to copy.';
      }
    } } });
    const panel = h('div', { id: 'secret-panel', class: 'card one-time', role: 'alert' },
      h('h2', { text: title }),
      h('p', { class: 'warn', id: 'secret-warning', text: 'Copy the secret now: this is the only time it is shown. '
        + 'ax stores it encrypted and cannot show it again; dismissing this panel or leaving the page forgets it. '
        + 'If it is lost, rotate the key.' }),
      facts([
        ['Access key', h('code', { id: 'secret-access-key', text: accessKey })],
        ['Secret', h('span', { class: 'pair secret-row' }, value, copy)],
        ...(extra || []),
      ]),
      h('div', { class: 'actions' },
        h('button', { id: 'secret-dismiss', type: 'button', text: 'I have stored it: dismiss', on: { click: dismiss } }),
        copied));
    slot.append(panel);
    forget = () => {
      held = null;
      value.textContent = '';
      window.getSelection().removeAllRanges();
      panel.remove();
    };
    panel.scrollIntoView({ block: 'nearest' });
  }

  return { slot, show, dismiss };
}

// ---- tenants

function tenants(content, ui) {
  const f = {
    id: h('input', { id: 'admin-tenant-id', required: true, pattern: TENANT_ID, maxlength: 64, spellcheck: 'false',
      placeholder: 'e.g. team-payments' }),
    name: h('input', { id: 'admin-tenant-name', maxlength: 200, placeholder: 'defaults to the id' }),
  };
  const list = h('div', { id: 'tenant-list' }, h('p', { class: 'muted', text: 'Loading…' }));
  const form = h('form', { class: 'card filters', id: 'tenant-create', on: { submit: async (ev) => {
    ev.preventDefault();
    const body = { tenant_id: f.id.value.trim() };
    if (f.name.value.trim()) {
      body.name = f.name.value.trim();
    }
    const created = await ui.attempt(() => call('POST', '/admin/v1/tenants', { body }));
    if (created) {
      ui.showNotice(`Tenant ${created.tenant_id} created.`);
      f.id.value = '';
      f.name.value = '';
      load();
    }
  } } },
  field('Tenant id', f.id, 'letters, digits, . _ : -'), field('Name', f.name),
  h('button', { id: 'admin-tenant-create', type: 'submit', text: 'Create tenant' }));

  async function load() {
    const answer = await ui.attempt(() => call('GET', '/admin/v1/tenants', { query: { limit: MAX_LIST } }));
    if (!answer) {
      replace(list, h('p', { class: 'muted', text: 'Could not load the tenants.' }));
      return;
    }
    replace(list, table(['Tenant', 'Name', 'Active keys', 'Created', ''], answer.items.map((t) =>
      h('tr', { dataset: { tenantId: t.tenant_id } },
        h('td', { class: 'mono', text: t.tenant_id }), h('td', { text: t.name }),
        h('td', { class: 'num', text: t.active_keys }), h('td', null, when(t.created_at)),
        h('td', null, h('a', { href: `#/admin/keys?tenant_id=${encodeURIComponent(t.tenant_id)}`, class: 'keys-link',
          text: 'Access keys →' })))), { id: 'tenants-table' }),
    answer.items.length >= MAX_LIST ? h('p', { class: 'muted', text: `The first ${MAX_LIST} tenants, by id.` }) : null);
  }

  replace(content, h('h2', { text: 'Create a tenant' }), form, h('h2', { text: 'Tenants' }), list);
  load();
}

// ---- access keys

function keys(content, params, ui, oneTime) {
  const tenant = h('select', { id: 'keys-tenant' }, h('option', { value: '', text: 'all tenants' }));
  const rate = h('input', { id: 'admin-key-rate', pattern: RATE_LIMIT, spellcheck: 'false', placeholder: 'AX_RATE_LIMIT',
    title: 'requests/s, or rate/burst' });
  const createButton = h('button', { id: 'admin-key-create', type: 'submit', text: 'Create access key' });
  const createHint = h('span', { class: 'muted', text: '' });
  const rotateSlot = h('div', { id: 'rotate-slot' });
  const list = h('div', { id: 'key-list' }, h('p', { class: 'muted', text: 'Loading…' }));

  const form = h('form', { class: 'card filters', id: 'key-create', on: { submit: async (ev) => {
    ev.preventDefault();
    if (!tenant.value) {
      return;
    }
    const body = { tenant_id: tenant.value };
    if (rate.value.trim()) {
      body.rate_limit = rate.value.trim();
    }
    const created = await ui.attempt(() => call('POST', '/admin/v1/keys', { body }));
    if (created) {
      rate.value = '';
      oneTime.show(`New access key for tenant ${created.tenant_id}`, created.access_key, created.secret,
        [['Created', when(created.created_at)]]);
      load();
    }
  } } },
  field('Tenant', tenant), field('Rate limit (optional)', rate, 'requests/s or rate/burst; default AX_RATE_LIMIT'),
  h('span', { class: 'pair' }, createButton, createHint));

  function syncCreate() {
    createButton.disabled = !tenant.value;
    createHint.textContent = tenant.value ? '' : 'pick a tenant to create a key for';
  }

  tenant.addEventListener('change', () => {
    // the tab's address follows the choice without re-rendering the page (a secret panel stays)
    history.replaceState(null, '', tenant.value ? `#/admin/keys?tenant_id=${encodeURIComponent(tenant.value)}` : '#/admin/keys');
    syncCreate();
    rotateSlot.replaceChildren();
    load();
  });

  async function loadTenants() {
    const answer = await ui.attempt(() => call('GET', '/admin/v1/tenants', { query: { limit: MAX_LIST } }));
    const ids = answer ? answer.items.map((t) => t.tenant_id) : [];
    if (params.tenant_id && !ids.includes(params.tenant_id)) {
      ids.push(params.tenant_id); // shown as asked; the server says if it does not exist
    }
    tenant.append(...ids.map((t) => h('option', { value: t, text: t, selected: t === params.tenant_id })));
    syncCreate();
  }

  async function load() {
    const answer = await ui.attempt(() => call('GET', '/admin/v1/keys',
      { query: { tenant_id: tenant.value, limit: MAX_LIST } }));
    if (!answer) {
      replace(list, h('p', { class: 'muted', text: 'Could not load the keys.' }));
      return;
    }
    replace(list, table(['Access key', 'Tenant', 'Status', 'Rate limit', 'Created', 'Rotated', 'Old secret valid until', ''],
      answer.items.map((k) => row(k)), { id: 'keys-table' }),
    answer.items.length >= MAX_LIST ? h('p', { class: 'muted', text: `The first ${MAX_LIST} keys.` }) : null);
  }

  /** Runs a change after the user confirms it; a notice and a fresh list when it succeeded. */
  async function change(question, method, path, done) {
    if (!window.confirm(question)) {
      return;
    }
    const answer = await ui.attempt(() => call(method, path));
    if (answer !== undefined) {
      ui.showNotice(done);
      load();
    }
  }

  function rotate(k) {
    const grace = h('input', { id: 'rotate-grace', type: 'number', min: 0, max: MAX_GRACE_S, step: 1, required: true, value: '3600' });
    const rotateForm = h('form', { class: 'card', id: 'rotate-form', dataset: { accessKey: k.access_key }, on: { submit: async (ev) => {
      ev.preventDefault();
      const graceS = Number(grace.value);
      const rotated = await ui.attempt(() => call('POST', `/admin/v1/keys/${encodeURIComponent(k.access_key)}/rotate`,
        { body: { grace_s: graceS } }));
      if (rotated) {
        rotateSlot.replaceChildren();
        oneTime.show(`New secret for ${rotated.access_key}`, rotated.access_key, rotated.secret,
          [['Old secret', rotated.previous_valid_until
            ? h('span', null, 'accepted until ', when(rotated.previous_valid_until))
            : h('span', { class: 'warn', text: 'refused from now on' })]]);
        load();
      }
    } } },
    h('h2', null, 'Rotate ', h('span', { class: 'mono', text: k.access_key })),
    h('p', { class: 'muted', text: 'A new secret is made and shown once. Requests signed with the current secret are '
      + 'still accepted for the grace period (0 = refused at once, at most 7 days); outgoing calls are signed with the new one at once.' }),
    h('div', { class: 'filters' },
      field('Grace period (s)', grace),
      h('span', { class: 'pair' },
        h('button', { id: 'rotate-confirm', type: 'submit', text: 'Rotate' }),
        h('button', { id: 'rotate-cancel', class: 'secondary', type: 'button', text: 'Cancel',
          on: { click: () => rotateSlot.replaceChildren() } }))));
    replace(rotateSlot, rotateForm);
    grace.focus();
  }

  function row(k) {
    const path = `/admin/v1/keys/${encodeURIComponent(k.access_key)}`;
    const active = k.status === 'active';
    return h('tr', { dataset: { accessKey: k.access_key } },
      h('td', { class: 'mono', text: k.access_key }), h('td', { text: k.tenant_id }),
      h('td', { class: 'status' }, badge(k.status)), h('td', { text: k.rate_limit || 'default' }),
      h('td', null, when(k.created_at)), h('td', null, when(k.rotated_at)), h('td', null, when(k.previous_valid_until)),
      h('td', { class: 'actions' },
        h('button', { type: 'button', class: 'small secondary rotate', text: 'Rotate…', on: { click: () => rotate(k) } }),
        active
          ? h('button', { type: 'button', class: 'small secondary disable', text: 'Disable', on: { click: () => change(
            `Disable ${k.access_key}? Every node refuses its requests within a second (its tasks still run).`,
            'POST', `${path}/disable`, `${k.access_key} disabled.`) } })
          : h('button', { type: 'button', class: 'small secondary enable', text: 'Enable', on: { click: () => change(
            `Enable ${k.access_key} again?`, 'POST', `${path}/enable`, `${k.access_key} enabled.`) } }),
        h('button', { type: 'button', class: 'small danger delete', text: 'Delete', on: { click: () => change(
          `Delete ${k.access_key} for good? It is refused from now on and cannot be enabled again.`,
          'DELETE', path, `${k.access_key} deleted.`) } })));
  }

  replace(content, h('h2', { text: 'Create an access key' }), form, rotateSlot, h('h2', { text: 'Access keys' }), list);
  syncCreate();
  loadTenants().then(load);
}

// ---- audit log

function audit(content, params, ui) {
  const limit = Math.min(MAX_LIST, Math.max(1, Number.parseInt(params.limit, 10) || 50));
  const list = h('div', { id: 'audit-list' });
  const older = h('button', { id: 'audit-older', class: 'secondary', type: 'button', text: 'Older entries', hidden: true });
  let before = null;

  async function page() {
    const answer = await ui.attempt(() => call('GET', '/admin/v1/audit', { query: { limit, before } }));
    if (!answer) {
      return;
    }
    if (!list.querySelector('tbody')) {
      replace(list, table(['#', 'When', 'Actor', 'Action', 'Target', 'Detail', 'From'], [], { id: 'audit-table' }));
      list.querySelector('tbody').replaceChildren();
    }
    const body = list.querySelector('tbody');
    answer.items.forEach((e) => body.append(h('tr', { dataset: { auditId: e.audit_id, action: e.action } },
      h('td', { class: 'num', text: e.audit_id }), h('td', null, when(e.at)),
      h('td', { class: 'actor', text: e.actor }), h('td', { class: 'action mono', text: e.action }),
      h('td', { class: 'target mono', text: e.target }),
      h('td', { class: 'ellipsis mono', title: JSON.stringify(e.detail), text: JSON.stringify(e.detail) }),
      h('td', { text: e.remote || 'CLI' }))));
    if (!body.children.length) {
      body.append(h('tr', null, h('td', { class: 'empty', colspan: 7, text: 'Nothing recorded yet.' })));
    }
    before = answer.next_before ?? null;
    older.hidden = before === null;
  }

  older.addEventListener('click', page);
  replace(content,
    h('div', { class: 'page-head' }, h('h2', { text: 'Audit log' }), h('span', { class: 'muted',
      text: `newest first, ${limit} at a time; every change made with an admin token (admin-api:<subject>) or the CLI (cli:<user>)` }),
      h('button', { id: 'audit-refresh', class: 'secondary', type: 'button', text: 'Newest',
        on: { click: () => { before = null; list.replaceChildren(); page(); } } })),
    list, older);
  page();
}
