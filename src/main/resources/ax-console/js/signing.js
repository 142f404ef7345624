// Request signing of API.md "Signing", in the browser (WebCrypto). It mirrors ax.signing.RequestSigning
// line by line, and ConsoleSignerTest runs this file under node against the Java signer and the
// vectors of API.md, so the two cannot drift apart.
//
//   string_to_sign = METHOD \n PATH \n CANONICAL_QUERY \n TIMESTAMP \n NONCE \n hex(SHA-256(body))
//
// Pure apart from crypto.subtle and crypto.getRandomValues (both in browsers and in node >= 19).

const encoder = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Lowercase hex of bytes. */
export function hex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Decodes only %XX (a '+' stays a plus, as in RFC 3986); the bytes must be UTF-8. Throws otherwise. */
function percentDecode(text) {
  if (!text.includes('%')) {
    return text;
  }
  const bytes = [];
  for (let i = 0; i < text.length;) {
    const c = text[i];
    if (c === '%') {
      const pair = text.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(pair)) {
        throw new Error(`malformed percent-encoding in query at "${text.slice(i)}"`);
      }
      bytes.push(parseInt(pair, 16));
      i += 3;
    } else {
      const cp = text.codePointAt(i);
      const ch = String.fromCodePoint(cp);
      bytes.push(...encoder.encode(ch));
      i += ch.length;
    }
  }
  return strictUtf8.decode(new Uint8Array(bytes));
}

/** Every UTF-8 byte as upper-case %XX except A-Za-z0-9-._~ (RequestSigning.percentEncode). */
export function percentEncode(text) {
  let out = '';
  for (const b of encoder.encode(text)) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** The query's parameters as the server reads them: [[name, value], ...]; a name twice is an error. */
export function parameters(rawQuery) {
  const out = new Map();
  if (!rawQuery) {
    return out;
  }
  for (const pair of rawQuery.split('&')) {
    if (pair === '') {
      continue;
    }
    const eq = pair.indexOf('=');
    const name = percentDecode(eq < 0 ? pair : pair.slice(0, eq));
    const value = percentDecode(eq < 0 ? '' : pair.slice(eq + 1));
    if (out.has(name)) {
      throw new Error(`query parameter '${name}' appears more than once`);
    }
    out.set(name, value);
  }
  return out;
}

/** Orders strings by their UTF-8 bytes (= code point order), as the Java side does. */
function byUtf8(a, b) {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) {
      return x[i] - y[i];
    }
  }
  return x.length - y.length;
}

/** The canonical form of a raw query (without '?'): sorted by name, re-encoded, joined by '&'. */
export function canonicalQuery(rawQuery) {
  return [...parameters(rawQuery).entries()]
    .sort((p, q) => byUtf8(p[0], q[0]))
    .map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`)
    .join('&');
}

/** Builds a raw query string from an object, leaving out empty values; encoded the canonical way. */
export function buildQuery(params) {
  return Object.entries(params || {})
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${percentEncode(k)}=${percentEncode(String(v))}`)
    .join('&');
}

async function sha256Hex(bytes) {
  return hex(await crypto.subtle.digest('SHA-256', bytes));
}

/** The string a request's signature covers. body: a string (UTF-8) or null for none. */
export async function stringToSign(method, path, canonical, timestamp, nonce, body) {
  const bodyBytes = body == null ? new Uint8Array(0) : encoder.encode(body);
  return [method.toUpperCase(), path, canonical || '', timestamp, nonce, await sha256Hex(bodyBytes)].join('\n');
}

/** Lowercase hex HMAC-SHA256 of data under secret (both UTF-8). */
export async function hmacSha256Hex(secret, data) {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' },
    false, ['sign']);
  return hex(await crypto.subtle.sign('HMAC', key, encoder.encode(data)));
}

/** A fresh nonce: 24 characters of [A-Za-z0-9_-] from the platform's random source. */
export function newNonce() {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return Array.from(crypto.getRandomValues(new Uint8Array(24)), (b) => alphabet[b & 63]).join('');
}

/**
 * The signing headers of one request.
 * @param {{method: string, path: string, rawQuery?: string, body?: string|null, accessKey: string,
 *          secret: string, timestamp?: string, nonce?: string}} r
 */
export async function signRequest(r) {
  const timestamp = r.timestamp ?? String(Date.now());
  const nonce = r.nonce ?? newNonce();
  const data = await stringToSign(r.method, r.path, canonicalQuery(r.rawQuery || ''), timestamp, nonce, r.body ?? null);
  return {
    'X-Ax-Key': r.accessKey,
    'X-Ax-Timestamp': timestamp,
    'X-Ax-Nonce': nonce,
    'X-Ax-Signature': await hmacSha256Hex(r.secret, data),
  };
}
