// Who is signed in: one credential, held in this module's memory only. Nothing is written to
// localStorage, sessionStorage or a cookie, so reloading or closing the page signs out.
//
// A credential kind is one entry of KINDS: the fields the sign-in form asks for, and how a request is
// authorized with them. The access key (HMAC signing, API.md "Signing") is the only kind today; the
// admin token of /admin/v1 is meant to be a second entry here — e.g.
//   'admin-token': { label: 'Admin token', fields: [{ name: 'token', label: 'Token', secret: true }],
//                    authorize: async (v) => ({ Authorization: `Bearer ${v.token}` }) }
// — and nothing else in the console needs to change.

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
  },
};

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
