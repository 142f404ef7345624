import { createHash, createHmac, randomBytes } from "node:crypto";
import type { FetchParams, Middleware, RequestContext } from "./generated/runtime";

/**
 * API.md's request signature, as the server checks it (its ax.signing.RequestSigning; the two are held
 * together by clients/signing-test-vectors.json, not by shared code):
 *
 *   HMAC-SHA256(secret, METHOD \n PATH \n CANONICAL_QUERY \n TIMESTAMP \n NONCE \n hex(SHA-256(body)))
 */

export interface Credentials {
  accessKey: string;
  secret: string;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * The query's parameters decoded (%XX only: a "+" stays a plus), sorted by name then value in UTF-8 byte
 * order, each re-encoded with only A-Z a-z 0-9 - . _ ~ kept (other bytes as upper-case %XX), joined by "&".
 */
export function canonicalQuery(rawQuery: string): string {
  const pairs: Array<[Buffer, Buffer]> = [];
  for (const pair of rawQuery.split("&")) {
    if (pair === "") {
      continue;
    }
    const eq = pair.indexOf("=");
    pairs.push([decode(eq < 0 ? pair : pair.slice(0, eq)), decode(eq < 0 ? "" : pair.slice(eq + 1))]);
  }
  pairs.sort((a, b) => Buffer.compare(a[0], b[0]) || Buffer.compare(a[1], b[1]));
  return pairs.map(([name, value]) => `${encode(name)}=${encode(value)}`).join("&");
}

export function stringToSign(method: string, path: string, rawQuery: string, timestamp: string, nonce: string,
                             body: Uint8Array): string {
  const bodyHash = createHash("sha256").update(body).digest("hex");
  return [method.toUpperCase(), path, canonicalQuery(rawQuery), timestamp, nonce, bodyHash].join("\n");
}

/** The lowercase hex signature of a request; path and query exactly as sent (the query without "?"). */
export function signature(secret: string, method: string, path: string, rawQuery: string, timestamp: string,
                          nonce: string, body: Uint8Array): string {
  return createHmac("sha256", secret).update(stringToSign(method, path, rawQuery, timestamp, nonce, body), "utf8")
    .digest("hex");
}

/** 22 characters of base64url: within the 8-64 of [A-Za-z0-9_-] the server takes. */
export function randomNonce(): string {
  return randomBytes(16).toString("base64url");
}

/**
 * A typescript-fetch middleware that adds the four signing headers to every request, computed over the
 * URL and body the generated client is about to send; so the generated methods take only the
 * operation's own parameters.
 */
export function signingMiddleware(credentials: Credentials, now: () => number = Date.now,
                                  nonce: () => string = randomNonce): Middleware {
  return {
    async pre(context: RequestContext): Promise<FetchParams> {
      const url = new URL(context.url);
      const method = (context.init.method ?? "GET").toUpperCase();
      const timestamp = String(now());
      const n = nonce();
      const headers = new Headers(context.init.headers as HeadersInit | undefined);
      headers.set("X-Ax-Key", credentials.accessKey);
      headers.set("X-Ax-Timestamp", timestamp);
      headers.set("X-Ax-Nonce", n);
      headers.set("X-Ax-Signature", signature(credentials.secret, method, url.pathname, url.search.slice(1),
        timestamp, n, bodyBytes(context.init.body)));
      return { url: context.url, init: { ...context.init, headers } };
    },
  };
}

/** The bytes fetch will send: the generated client sends JSON text, or nothing. */
function bodyBytes(body: unknown): Uint8Array {
  if (body === undefined || body === null) {
    return new Uint8Array(0);
  }
  if (typeof body === "string") {
    return Buffer.from(body, "utf8");
  }
  if (body instanceof Uint8Array) {
    return body;
  }
  if (body instanceof ArrayBuffer) {
    return new Uint8Array(body);
  }
  if (body instanceof URLSearchParams) {
    return Buffer.from(body.toString(), "utf8");
  }
  throw new Error("cannot sign a request body of this kind (a stream, Blob or FormData): its bytes are not known here");
}

function decode(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "%") {
      const hex = text.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) {
        throw new Error(`malformed percent-encoding in query: ${text}`);
      }
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      const codePoint = text.codePointAt(i)!;
      const char = String.fromCodePoint(codePoint);
      bytes.push(...Buffer.from(char, "utf8"));
      i += char.length - 1;
    }
  }
  const decoded = Buffer.from(bytes);
  // the server refuses a query that is not UTF-8; refuse it here too rather than sign something else
  new TextDecoder("utf-8", { fatal: true }).decode(decoded);
  return decoded;
}

function encode(bytes: Buffer): string {
  let out = "";
  for (const b of bytes) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && UNRESERVED.test(c) ? c : "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}
