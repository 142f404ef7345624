import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { canonicalQuery, randomNonce, signature, signingMiddleware, stringToSign } from "../src/signing";

/**
 * The TypeScript client signs every vector of clients/signing-test-vectors.json as the server does (the
 * server's SigningVectorsTest and the Java client read the same file): the algorithm, then the
 * middleware on the URL and body the generated client hands to fetch.
 */
interface Vector {
  name: string; method: string; path: string; query: string; canonical_query: string; timestamp: string;
  nonce: string; body: string; body_sha256: string; string_to_sign: string; signature: string;
}

// compiled to dist/test/: the file is three levels up, in clients/
const doc = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "signing-test-vectors.json"), "utf8")) as
  { secret: string; access_key: string; vectors: Vector[] };

for (const v of doc.vectors) {
  test(`the signer computes: ${v.name}`, () => {
    const body = Buffer.from(v.body, "utf8");
    assert.equal(canonicalQuery(v.query), v.canonical_query);
    assert.equal(stringToSign(v.method, v.path, v.query, v.timestamp, v.nonce, body), v.string_to_sign);
    assert.equal(signature(doc.secret, v.method, v.path, v.query, v.timestamp, v.nonce, body), v.signature);
  });

  test(`the middleware signs what fetch will send: ${v.name}`, async () => {
    const middleware = signingMiddleware({ accessKey: doc.access_key, secret: doc.secret },
      () => Number(v.timestamp), () => v.nonce);
    const url = `http://127.0.0.1:8080${v.path}${v.query === "" ? "" : "?" + v.query}`;
    const init = { method: v.method, headers: { "Content-Type": "application/json" }, body: v.body === "" ? undefined : v.body };
    const signed = await middleware.pre!({ fetch, url, init });
    const headers = new Headers(signed!.init.headers);
    assert.equal(headers.get("X-Ax-Signature"), v.signature);
    assert.equal(headers.get("X-Ax-Key"), doc.access_key);
    assert.equal(headers.get("X-Ax-Timestamp"), v.timestamp);
    assert.equal(headers.get("X-Ax-Nonce"), v.nonce);
    assert.equal(headers.get("Content-Type"), "application/json", "the generated client's headers stay");
    assert.equal(signed!.url, url);
    assert.equal(signed!.init.body, init.body);
  });
}

test("nonces are fresh and of the alphabet the server takes", () => {
  const a = randomNonce();
  assert.match(a, /^[A-Za-z0-9_-]{8,64}$/);
  assert.notEqual(a, randomNonce());
});

test("a query that does not decode to UTF-8 is refused, not signed as something else", () => {
  assert.throws(() => canonicalQuery("a=%C3"));
  assert.throws(() => canonicalQuery("a=%zz"));
});
