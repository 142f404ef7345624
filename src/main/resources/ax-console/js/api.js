// The API as the console calls it: authorized requests (signed for /openapi/v1, a bearer token for
// /admin/v1 — session.js decides), unsigned reads of /health and
// /metrics, and problem+json answers turned into an ApiError with the server's title and detail.

import { authorize, noteServerDate } from './session.js';
import { buildQuery } from './signing.js';

/** An answer other than 2xx; problem is the problem+json body when there is one. */
export class ApiError extends Error {
  constructor(status, problem, fallback) {
    const p = problem || {};
    super(p.detail || p.title || fallback || `HTTP ${status}`);
    this.status = status;
    this.title = p.title || (status ? `HTTP ${status}` : 'Request failed');
    this.detail = p.detail || fallback || '';
    this.code = p.code || '';
  }
}

async function read(res) {
  const type = res.headers.get('content-type') || '';
  const text = await res.text();
  if (type.includes('json') && text) {
    try {
      return JSON.parse(text);
    } catch (e) {
      return { unreadable: text };
    }
  }
  return text;
}

/**
 * A signed call: call('GET', '/openapi/v1/tasks', {query: {status: 'FAILED'}}) or
 * call('POST', '/openapi/v1/tasks', {body: {...}}). Resolves to the parsed body; rejects with ApiError.
 */
export async function call(method, path, options = {}) {
  const rawQuery = buildQuery(options.query);
  const body = options.body === undefined ? null : JSON.stringify(options.body);
  const headers = { Accept: 'application/json', ...(await authorize({ method, path, rawQuery, body })) };
  if (body !== null) {
    headers['Content-Type'] = 'application/json';
  }
  let res;
  try {
    res = await fetch(path + (rawQuery ? `?${rawQuery}` : ''), {
      method, headers, body, cache: 'no-store', credentials: 'omit', redirect: 'error' });
  } catch (e) {
    throw new ApiError(0, { title: 'Network error', detail: `${method} ${path}: ${e.message}` });
  }
  const answer = await read(res);
  if (!res.ok) {
    if (res.status === 401 && answer && answer.code === 'timestamp_skew') {
      noteServerDate(res.headers.get('date'));
    }
    throw new ApiError(res.status, typeof answer === 'object' ? answer : null, typeof answer === 'string' ? answer : '');
  }
  return answer;
}

/** An unsigned GET (/health, /metrics): the body (JSON or text) whatever the status, with the status. */
export async function unsigned(path) {
  let res;
  try {
    res = await fetch(path, { cache: 'no-store', credentials: 'omit' });
  } catch (e) {
    throw new ApiError(0, { title: 'Network error', detail: `GET ${path}: ${e.message}` });
  }
  noteServerDate(res.headers.get('date'));
  return { status: res.status, body: await read(res) };
}
