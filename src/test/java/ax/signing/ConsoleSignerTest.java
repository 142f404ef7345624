package ax.signing;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The web console signs in the browser with its own JavaScript (ax-console/js/signing.js, WebCrypto).
 * This runs that very file under node on fixed and seeded random requests — API.md's vectors, queries
 * with unicode, '+', reserved characters, percent-encoding and empty values — and checks that its
 * canonical query and signature equal {@link RequestSigning}'s. Skipped where node is not installed
 * (CI installs it); ConsoleIT checks API.md's vectors in chromium as well.
 */
class ConsoleSignerTest {
  private static final Path SIGNER = Path.of("src/main/resources/ax-console/js/signing.js");

  private record Vector(String method, String path, String rawQuery, String timestamp, String nonce, String body,
                        String secret) {
    JsonObject json() {
      return new JsonObject().put("method", method).put("path", path).put("rawQuery", rawQuery).put("timestamp", timestamp)
          .put("nonce", nonce).put("body", body).put("secret", secret);
    }

    String javaSignature() {
      return RequestSigning.hmacSha256Hex(secret, RequestSigning.stringToSign(method, path,
          RequestSigning.canonicalQuery(rawQuery), timestamp, nonce, body == null ? null : body.getBytes(StandardCharsets.UTF_8)));
    }
  }

  private static List<Vector> vectors() {
    List<Vector> v = new ArrayList<>();
    String secret = "s3cr3t-key-0123456789abcdef";
    v.add(new Vector("POST", "/openapi/v1/tasks", "", "1764460800000", "n0nce-abc123",
        "{\"task_type\":\"coupon.grant\",\"delay_ms\":5000,\"callback_url\":\"https://hooks.example.com/grant\",\"payload\":{\"user\":42}}",
        secret));
    v.add(new Vector("GET", "/openapi/v1/tasks", "task_type=coupon.grant&status=DELAYED&limit=50", "1764460800000",
        "n0nce-xyz789", null, secret));
    v.add(new Vector("GET", "/openapi/v1/tasks", "b=%C3%A9t%C3%A9&a=1+2&B=x%20y&%C3%A4=&empty&&z=%2F%3F%26",
        "1", "nonce-unicode", null, "secret-with-ünïcode-0123456789"));
    v.add(new Vector("post", "/openapi/v1/tasks/123/cancel", null, "1764460800001", "nonce_under-score", "", secret));
    Random random = new Random(14_5);
    String alphabet = "aZ09-._~ +%/?&=éß中😀";
    for (int i = 0; i < 200; i++) {
      StringBuilder query = new StringBuilder();
      int params = random.nextInt(5);
      for (int p = 0; p < params; p++) {
        query.append(p == 0 ? "" : "&").append("k").append(p).append(random.nextBoolean() ? "é" : "")
            .append('=').append(encode(word(random, alphabet)));
      }
      v.add(new Vector(random.nextBoolean() ? "GET" : "POST", "/openapi/v1/schedules/" + random.nextInt(1000),
          query.toString(), Long.toString(random.nextLong(2_000_000_000_000L)), "nonce" + i + "xyzw",
          random.nextBoolean() ? null : "{\"x\":\"" + word(random, "abc é中😀") + "\"}", "secret-" + i + "-0123456789abcdef"));
    }
    return v;
  }

  private static String word(Random random, String alphabet) {
    int[] cps = alphabet.codePoints().toArray();
    StringBuilder out = new StringBuilder();
    for (int i = random.nextInt(8); i > 0; i--) {
      out.appendCodePoint(cps[random.nextInt(cps.length)]);
    }
    return out.toString();
  }

  /** Encoded as a browser might: some characters escaped, others (such as '~' or 'é' as %C3%A9) not. */
  private static String encode(String s) {
    return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  @Test
  void theConsolesJavaScriptSignerAgreesWithTheJavaSigner() throws Exception {
    assumeTrue(onPath("node"), "node is not installed");
    List<Vector> vectors = vectors();
    Path script = Files.createTempFile("console-signer-", ".mjs");
    Files.writeString(script, """
        import { canonicalQuery, signRequest } from '%s';
        let input = '';
        process.stdin.on('data', (d) => { input += d; });
        process.stdin.on('end', async () => {
          const out = [];
          for (const v of JSON.parse(input)) {
            const h = await signRequest({ ...v, accessKey: 'k' });
            out.push({ canonical: canonicalQuery(v.rawQuery || ''), signature: h['X-Ax-Signature'] });
          }
          process.stdout.write(JSON.stringify(out));
        });
        """.formatted(SIGNER.toAbsolutePath().toUri()));
    try {
      Process node = new ProcessBuilder("node", script.toString()).redirectErrorStream(false).start();
      JsonArray in = new JsonArray();
      vectors.forEach(v -> in.add(v.json()));
      node.getOutputStream().write(in.encode().getBytes(StandardCharsets.UTF_8));
      node.getOutputStream().close();
      String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      String err = new String(node.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(node.waitFor(60, TimeUnit.SECONDS) && node.exitValue() == 0, "node failed: " + err);
      JsonArray answers = new JsonArray(out);
      assertEquals(vectors.size(), answers.size());
      assertEquals("6e5f2760ca9c56d38fa872a44dbea742d7ca91285e082d1591d89fa1d809f808",
          answers.getJsonObject(0).getString("signature"), "API.md's POST vector");
      assertEquals("37fcf9f5fa5d1190823eabab61d8d94a2f945f191dd5b7bf6aa1c82e4feb5b50",
          answers.getJsonObject(1).getString("signature"), "API.md's GET vector");
      for (int i = 0; i < vectors.size(); i++) {
        Vector v = vectors.get(i);
        JsonObject a = answers.getJsonObject(i);
        assertEquals(RequestSigning.canonicalQuery(v.rawQuery()), a.getString("canonical"), "canonical query of " + v);
        assertEquals(v.javaSignature(), a.getString("signature"), "signature of " + v);
      }
    } finally {
      Files.deleteIfExists(script);
    }
  }

  private static boolean onPath(String command) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return false;
  }
}
