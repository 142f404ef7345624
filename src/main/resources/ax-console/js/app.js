// The console's shell: the sign-in form, the navigation, the error banner, and a hash router
// (#/cluster, #/tasks, #/tasks/<id>, #/schedules, #/charts) that renders one page at a time.

import { call, unsigned } from './api.js';
import { field, h, replace } from './dom.js';
import * as session from './session.js';
import * as cluster from './pages/cluster.js';
import * as tasks from './pages/tasks.js';
import * as schedules from './pages/schedules.js';
import * as charts from './pages/charts.js';

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

const PAGES = { cluster, tasks, schedules, charts };

function route() {
  if (leave) {
    leave();
    leave = null;
  }
  clearError();
  if (!session.signedIn()) {
    renderSignIn();
    return;
  }
  const hash = location.hash.replace(/^#\/?/, '');
  const [pathPart, queryPart] = hash.split('?');
  const parts = pathPart.split('/').filter(Boolean);
  const name = PAGES[parts[0]] ? parts[0] : 'cluster';
  nav.querySelectorAll('a').forEach((a) => a.classList.toggle('active', a.dataset.page === name));
  const params = Object.fromEntries(new URLSearchParams(queryPart || ''));
  main.replaceChildren();
  leave = PAGES[name].render(main, { id: parts[1], params, ui: { showError, showNotice, attempt, clearError } }) || null;
}

function renderSignIn() {
  nav.hidden = true;
  document.getElementById('sign-out').hidden = true;
  document.getElementById('who').textContent = '';
  const kindName = 'access-key';
  const kind = session.KINDS[kindName];
  const inputs = kind.fields.map((f) => h('input', { id: `signin-${f.name}`, name: f.name, required: true,
    type: f.secret ? 'password' : 'text', autocomplete: f.autocomplete, spellcheck: 'false' }));
  const status = h('p', { class: 'muted', id: 'signin-status' });
  const form = h('form', { class: 'card narrow', id: 'signin-form', on: { submit: async (ev) => {
    ev.preventDefault();
    const values = Object.fromEntries(kind.fields.map((f, i) => [f.name, inputs[i].value.trim()]));
    session.signIn(kindName, values);
    status.textContent = 'Checking…';
    try {
      await unsigned('/health/live'); // learns the server's clock from its Date header
      await call('GET', '/openapi/v1/tasks', { query: { limit: 1 } }); // a signed call proves the key
    } catch (e) {
      session.signOut();
      status.textContent = '';
      showError(e);
      return;
    }
    inputs.forEach((i) => { i.value = ''; });
    if (!location.hash || location.hash === '#/' || location.hash === '#') {
      location.hash = '#/cluster';
    }
    signedInShell();
    route();
  } } },
  h('h1', { text: 'Sign in' }),
  h('p', { class: 'muted', text: 'Every request is signed in this page with your secret (HMAC-SHA256); '
    + 'the secret is kept in memory only and forgotten when the page is reloaded or closed.' }),
  kind.fields.map((f, i) => field(f.label, inputs[i])),
  h('button', { id: 'signin-submit', type: 'submit', text: 'Sign in' }),
  status);
  replace(main, form);
  inputs[0].focus();
}

function signedInShell() {
  nav.hidden = false;
  document.getElementById('who').textContent = session.describe();
  document.getElementById('sign-out').hidden = false;
}

document.getElementById('sign-out').addEventListener('click', () => {
  session.signOut();
  location.hash = '';
  route();
});
window.addEventListener('hashchange', route);
route();
