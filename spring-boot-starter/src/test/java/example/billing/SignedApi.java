package example.billing;

import io.vertx.core.json.JsonObject;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Signs and sends API requests as API.md "Signing" tells a client to, computed here from the text of
 * the spec (HMAC-SHA256 over method, path, canonical query, timestamp, nonce and the body's SHA-256),
 * not borrowed from the scheduler's code: {@code SignedApiTest} checks it against the spec's vectors.
 */
final class SignedApi {
  record Reply(int status, JsonObject body, String raw) {
  }

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private final int port;
  private final String key;
  private final String secret;

  SignedApi(int port, String key, String secret) {
    this.port = port;
    this.key = key;
    this.secret = secret;
  }

  Reply post(String path, String body) throws Exception {
    return send("POST", path, null, body);
  }

  Reply get(String path) throws Exception {
    return send("GET", path, null, "");
  }

  /** An unsigned GET outside /openapi/v1 ({@code /health?detail=true}). */
  Reply getPublic(String pathAndQuery) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), new JsonObject(r.body()), r.body());
  }

  private Reply send(String method, String path, String query, String body) throws Exception {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    String timestamp = Long.toString(System.currentTimeMillis());
    String nonce = UUID.randomUUID().toString().replace("-", "");
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path
            + (query == null ? "" : "?" + query)))
        .timeout(Duration.ofSeconds(10))
        .header("X-Ax-Key", key).header("X-Ax-Timestamp", timestamp).header("X-Ax-Nonce", nonce)
        .header("X-Ax-Signature", signature(secret, method, path, query, timestamp, nonce, bytes));
    if ("POST".equals(method)) {
      b.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(bytes));
    } else {
      b.GET();
    }
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    JsonObject json = r.body() != null && r.body().startsWith("{") ? new JsonObject(r.body()) : null;
    return new Reply(r.statusCode(), json, r.body());
  }

  /** {@code X-Ax-Signature}: lowercase hex HMAC-SHA256(secret, string_to_sign). */
  static String signature(String secret, String method, String path, String rawQuery, String timestamp, String nonce,
                          byte[] body) throws GeneralSecurityException {
    String toSign = method.toUpperCase() + "\n" + path + "\n" + canonicalQuery(rawQuery) + "\n" + timestamp + "\n"
        + nonce + "\n" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    return HexFormat.of().formatHex(mac.doFinal(toSign.getBytes(StandardCharsets.UTF_8)));
  }

  /** Parameters decoded, sorted by name then value (code point), each re-encoded RFC 3986, joined by {@code &}. */
  static String canonicalQuery(String rawQuery) {
    if (rawQuery == null || rawQuery.isEmpty()) {
      return "";
    }
    List<String[]> pairs = Arrays.stream(rawQuery.split("&")).filter(p -> !p.isEmpty()).map(p -> {
      int eq = p.indexOf('=');
      return new String[] {decode(eq < 0 ? p : p.substring(0, eq)), decode(eq < 0 ? "" : p.substring(eq + 1))};
    }).sorted((a, b) -> a[0].equals(b[0]) ? codePoints(a[1], b[1]) : codePoints(a[0], b[0])).toList();
    return pairs.stream().map(p -> encode(p[0]) + "=" + encode(p[1])).collect(Collectors.joining("&"));
  }

  private static int codePoints(String a, String b) {
    return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  private static String decode(String s) {
    return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8); // a plus stays a plus (RFC 3986)
  }

  private static String encode(String s) {
    StringBuilder out = new StringBuilder();
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xFF;
      if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || "-._~".indexOf(c) >= 0) {
        out.append((char) c);
      } else {
        out.append('%').append(String.format("%02X", c));
      }
    }
    return out.toString();
  }
}
