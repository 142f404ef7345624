// Who is signed in: one credential, held in this module's memory only. Nothing is written to
// localStorage, sessionStorage or a cookie, so reloading or closing the page signs out.
//
// A credential kind is one entry of KINDS: the fields the sign-in form asks for, how a request is
// authorized with them, which API it opens (scope: 'tenant' for /openapi/v1, 'admin' for /admin/v1),
// and the call that proves it at sign-in. Two kinds: an access key with its secret (HMAC signing,
// API.md "Signing") and an admin token (a JWT from `ax admin-token`, sent as a bearer token).

import { signRequest } from './signing.js';

export const KINDS = {
  'access-key': {
    label: 'Access key',
    fields: [
      { name: 'accessKey', label: 'Access key', secret: false, autocomplete: 'username' },
      { name: 'secret', label: 'Secret', secret: true, autocomplete: 'current-password' },
    ],
    /** Signing headers for one request; the secret never leaves the page (only the HMAC does). */
    authorize: (v, request) => signRequest({ ...request, accessKey: v.accessKey, secret: v.secret,
      timestamp: String(Date.now() + clockOffsetMs) }),
    describe: (v) => v.accessKey,
    scope: 'tenant',
    home: '#/cluster',
    /** A signed call proves the key and its secret. */
    check: { method: 'GET', path: '/openapi/v1/tasks', query: { limit: 1 } },
    explain: 'Every request is signed in this page with your secret (HMAC-SHA256); the secret is kept in '
      + 'memory only and forgotten when the page is reloaded or closed.',
  },
  'admin-token': {
    label: 'Admin token',
    fields: [
      { name: 'token', label: 'Admin token (JWT)', secret: true, autocomplete: 'off',
        hint: 'java -jar ax.jar admin-token --subject <your name>' },
    ],
    /** The token itself goes to this node only, over the page's own origin. */
    authorize: async (v) => ({ Authorization: `Bearer ${v.token}` }),
    describe: (v) => subjectOf(v.token),
    scope: 'admin',
    home: '#/admin',
    check: { method: 'GET', path: '/admin/v1/tenants', query: { limit: 1 } },
    explain: 'The token is sent to this node as a bearer token with each /admin/v1 call; it is kept in memory '
      + 'only and forgotten when the page is reloaded or closed. The node must run with AX_ADMIN_JWT_SECRET.',
  },
};

/** The token's `sub` (who it names; shown in the header and written into the audit), unverified. */
function subjectOf(token) {
  try {
    const payload = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const sub = JSON.parse(atob(payload.padEnd(Math.ceil(payload.length / 4) * 4, '='))).sub;
    return typeof sub === 'string' && sub ? sub : '?';
  } catch (e) {
    return '?';
  }
}

let current = null; // { kind, values }
let clockOffsetMs = 0; // server time − browser time, when they differ by more than 30 s

/** Signs in with a kind of credential and its values; they are kept in memory only. */
export function signIn(kind, values) {
  if (!KINDS[kind]) {
    throw new Error(`unknown credential kind ${kind}`);
  }
  current = { kind, values: { ...values } };
}

export function signOut() {
  current = null;
}

export function signedIn() {
  return current !== null;
}

/** The kind signed in with ('access-key', 'admin-token'), or null. */
export function kind() {
  return current ? current.kind : null;
}

/** What the credential opens: 'tenant' (/openapi/v1), 'admin' (/admin/v1), or null when signed out. */
export function scope() {
  return current ? KINDS[current.kind].scope : null;
}

/** Who is signed in, for the header. */
export function describe() {
  return current ? `${KINDS[current.kind].label}: ${KINDS[current.kind].describe(current.values)}` : '';
}

/** The headers that authorize {method, path, rawQuery, body}. */
export function authorize(request) {
  if (!current) {
    throw new Error('not signed in');
  }
  return KINDS[current.kind].authorize(current.values, request);
}

/**
 * Remembers how far the server's clock is from this browser's, from a response's Date header, so a
 * browser whose clock is minutes off still signs inside the server's 300 s window.
 */
export function noteServerDate(dateHeader) {
  const server = Date.parse(dateHeader || '');
  if (Number.isFinite(server)) {
    const offset = server - Date.now();
    clockOffsetMs = Math.abs(offset) > 30_000 ? offset : 0;
  }
}
