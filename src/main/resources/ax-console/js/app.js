// The console's shell: the sign-in form (access key or admin token), the navigation, the error banner,
// and a hash router (#/cluster, #/tasks, #/tasks/<id>, #/schedules, #/charts, #/admin/<tab>) that
// renders one page at a time. A page that needs the other kind of credential says so instead of failing.

import { call, unsigned } from './api.js';
import { field, h, replace } from './dom.js';
import * as session from './session.js';
import * as cluster from './pages/cluster.js';
import * as tasks from './pages/tasks.js';
import * as schedules from './pages/schedules.js';
import * as charts from './pages/charts.js';
import * as admin from './pages/admin.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const banner = document.getElementById('error');
const notice = document.getElementById('notice');
let leave = null; // the current page's cleanup (stops its timers)

/** Shows an error (an ApiError's title and detail, or any Error) until the next navigation or dismissal. */
export function showError(err) {
  replace(banner,
    h('strong', { text: err.title || 'Error' }),
    err.status ? h('span', { class: 'muted', text: ` (${err.status}${err.code ? `, ${err.code}` : ''})` }) : null,
    h('span', { class: 'detail', text: err.detail || err.message || String(err) }),
    h('button', { class: 'link', type: 'button', text: 'Dismiss', on: { click: clearError } }));
  banner.hidden = false;
}

export function clearError() {
  banner.hidden = true;
  banner.replaceChildren();
}

/** A short confirmation ("Task 123 cancelled"), gone after a few seconds. */
export function showNotice(text) {
  replace(notice, text);
  notice.hidden = false;
  clearTimeout(showNotice.timer);
  showNotice.timer = setTimeout(() => { notice.hidden = true; }, 4000);
}

/** Runs an action (a button's), showing its failure in the banner; resolves to its result or undefined. */
export async function attempt(action) {
  try {
    clearError();
    return await action();
  } catch (e) {
    showError(e);
    return undefined;
  }
}

const PAGES = { cluster, tasks, schedules, charts, admin };

/** What each scope is called, and how to get it, for a page that needs the other one. */
const NEEDS = {
  tenant: { title: 'This page needs an access key', kind: 'access-key',
    text: 'Tasks and schedules belong to a tenant: sign in with one of its access keys and its secret to see them. '
      + 'An admin token manages tenants and keys but does not act as a tenant.' },
  admin: { title: 'This page needs an admin token', kind: 'admin-token',
    text: 'Administration (tenants, access keys, the audit log) is reached with an admin token: '
      + 'java -jar ax.jar admin-token --subject <your name>, on a node started with AX_ADMIN_JWT_SECRET.' },
};

function needsOther(needs) {
  const n = NEEDS[needs];
  return h('section', { class: 'page' }, h('div', { class: 'card narrow', id: 'needs-credential', dataset: { needs } },
    h('h1', { text: n.title }),
    h('p', { text: n.text }),
    h('p', { class: 'muted', text: `You are signed in with ${session.describe()}. The Cluster and Charts pages need no credential.` }),
    h('button', { id: 'needs-sign-in', type: 'button', text: `Sign out and sign in with an ${session.KINDS[n.kind].label.toLowerCase()}`,
      on: { click: () => signOutTo(n.kind) } })));
}

function route() {
  if (leave) {
    leave();
    leave = null;
  }
  clearError();
  if (!session.signedIn()) {
    if (!main.querySelector(`#signin-form[data-kind="${signInKind}"]`)) {
      renderSignIn(); // (a form already shown keeps what was typed into it)
    }
    return;
  }
  const hash = location.hash.replace(/^#\/?/, '');
  const [pathPart, queryPart] = hash.split('?');
  const parts = pathPart.split('/').filter(Boolean);
  const name = PAGES[parts[0]] ? parts[0] : 'cluster';
  nav.querySelectorAll('a').forEach((a) => a.classList.toggle('active', a.dataset.page === name));
  const params = Object.fromEntries(new URLSearchParams(queryPart || ''));
  main.replaceChildren();
  const page = PAGES[name];
  if (page.needs && page.needs !== session.scope()) {
    main.append(needsOther(page.needs));
    return;
  }
  leave = page.render(main, { id: parts[1], params, ui: { showError, showNotice, attempt, clearError } }) || null;
}

let signInKind = 'access-key';

/** Why a sign-in failed, in the words of the credential kind that was tried. */
function signInProblem(kindName, e) {
  if (kindName === 'admin-token' && e.status === 404) {
    return { title: 'The admin API is off on this node', status: 404, code: e.code,
      detail: 'It answered 404 to /admin/v1: start the node with AX_ADMIN_JWT_SECRET (and AX_MASTER_KEY) to turn it on. '
        + `(${e.detail})` };
  }
  if (kindName === 'admin-token' && e.status === 401) {
    return { title: 'Admin token refused', status: 401, code: e.code, detail: e.detail };
  }
  if (kindName === 'access-key' && e.status === 401) {
    return { title: 'Access key refused', status: 401, code: e.code, detail: e.detail };
  }
  return e;
}

function renderSignIn() {
  nav.hidden = true;
  document.getElementById('sign-out').hidden = true;
  document.getElementById('who').textContent = '';
  const kindName = signInKind;
  const kind = session.KINDS[kindName];
  const inputs = kind.fields.map((f) => h('input', { id: `signin-${f.name}`, name: f.name, required: true,
    type: f.secret ? 'password' : 'text', autocomplete: f.autocomplete, spellcheck: 'false' }));
  const status = h('p', { class: 'muted', id: 'signin-status' });
  const kinds = h('div', { class: 'kinds', role: 'radiogroup', attrs: { 'aria-label': 'Sign in with' } },
    Object.entries(session.KINDS).map(([name, k]) => h('label', { class: name === kindName ? 'kind active' : 'kind' },
      h('input', { type: 'radio', name: 'signin-kind', id: `signin-kind-${name}`, value: name, checked: name === kindName,
        on: { change: () => { signInKind = name; clearError(); renderSignIn(); } } }),
      k.label)));
  const form = h('form', { class: 'card narrow', id: 'signin-form', dataset: { kind: kindName }, on: { submit: async (ev) => {
    ev.preventDefault();
    const values = Object.fromEntries(kind.fields.map((f, i) => [f.name, inputs[i].value.trim()]));
    session.signIn(kindName, values);
    status.textContent = 'Checking…';
    try {
      await unsigned('/health/live'); // learns the server's clock from its Date header
      await call(kind.check.method, kind.check.path, { query: kind.check.query }); // proves the credential
    } catch (e) {
      session.signOut();
      status.textContent = '';
      showError(signInProblem(kindName, e));
      return;
    }
    inputs.forEach((i) => { i.value = ''; });
    signedInShell();
    if (!location.hash || location.hash === '#/' || location.hash === '#') {
      location.hash = kind.home; // routes (hashchange)
    } else {
      route();
    }
  } } },
  h('h1', { text: 'Sign in' }),
  kinds,
  h('p', { class: 'muted', text: kind.explain }),
  kind.fields.map((f, i) => field(f.label, inputs[i], f.hint)),
  h('button', { id: 'signin-submit', type: 'submit', text: 'Sign in' }),
  status);
  replace(main, form);
  inputs[0].focus();
}

/** Signs out and shows the sign-in form for a kind of credential. */
function signOutTo(kindName) {
  session.signOut();
  signInKind = kindName;
  if (location.hash && location.hash !== '#') {
    location.hash = ''; // routes (hashchange)
  } else {
    route();
  }
}

function signedInShell() {
  nav.hidden = false;
  const scope = session.scope();
  nav.querySelectorAll('a[data-scope]').forEach((a) => {
    const other = a.dataset.scope !== scope;
    a.hidden = a.dataset.scope === 'admin' && other; // an access key never sees Administration in the menu
    a.classList.toggle('needs-other', other);
    a.title = other ? `needs an ${session.KINDS[NEEDS[a.dataset.scope].kind].label.toLowerCase()}` : '';
  });
  document.getElementById('who').textContent = session.describe();
  document.getElementById('sign-out').hidden = false;
}

document.getElementById('sign-out').addEventListener('click', () => signOutTo(session.kind() || signInKind));
window.addEventListener('hashchange', route);
route();
