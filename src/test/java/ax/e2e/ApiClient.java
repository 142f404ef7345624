package ax.e2e;

import ax.signing.RequestSigning;
import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/** Signs and sends API requests the way API.md tells clients to. */
final class ApiClient {
  record Reply(int status, JsonObject body, HttpResponse<String> raw) {
    String code() {
      return body == null ? null : body.getString("code");
    }
  }

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private final int port;
  final String key;
  final String secret;

  ApiClient(int port, String key, String secret) {
    this.port = port;
    this.key = key;
    this.secret = secret;
  }

  ApiClient withPort(int newPort) {
    return new ApiClient(newPort, key, secret);
  }

  Reply post(String path, String body) throws Exception {
    return send("POST", path, null, body, System.currentTimeMillis(), newNonce(), null);
  }

  Reply get(String pathAndQuery) throws Exception {
    int q = pathAndQuery.indexOf('?');
    return send("GET", q < 0 ? pathAndQuery : pathAndQuery.substring(0, q), q < 0 ? null : pathAndQuery.substring(q + 1),
        "", System.currentTimeMillis(), newNonce(), null);
  }

  Reply put(String path, String body) throws Exception {
    return send("PUT", path, null, body, System.currentTimeMillis(), newNonce(), null);
  }

  Reply delete(String path) throws Exception {
    return send("DELETE", path, null, "", System.currentTimeMillis(), newNonce(), null);
  }

  Reply submit(JsonObject task) throws Exception {
    return post("/openapi/v1/tasks", task.encode());
  }

  /** A task submitted with a W3C {@code traceparent} header, as a traced caller would send it. */
  Reply submitWithTraceparent(JsonObject task, String traceparent) throws Exception {
    return send("POST", "/openapi/v1/tasks", null, task.encode(), System.currentTimeMillis(), newNonce(), null,
        "application/json", Map.of("traceparent", traceparent));
  }

  /** A signed POST to any path with a W3C {@code traceparent} header. */
  Reply postWithTraceparent(String path, String body, String traceparent) throws Exception {
    return send("POST", path, null, body, System.currentTimeMillis(), newNonce(), null, "application/json",
        Map.of("traceparent", traceparent));
  }

  /** A signed POST whose body is sent as {@code contentType} (for 415 tests). */
  Reply postAs(String path, String body, String contentType) throws Exception {
    return send("POST", path, null, body, System.currentTimeMillis(), newNonce(), null, contentType);
  }

  /** Full control for negative tests: explicit timestamp, nonce, and an optional signature override. */
  Reply send(String method, String path, String query, String body, long timestamp, String nonce,
             String signatureOverride) throws Exception {
    return send(method, path, query, body, timestamp, nonce, signatureOverride, "application/json");
  }

  private Reply send(String method, String path, String query, String body, long timestamp, String nonce,
                     String signatureOverride, String contentType) throws Exception {
    return send(method, path, query, body, timestamp, nonce, signatureOverride, contentType, Map.of());
  }

  private Reply send(String method, String path, String query, String body, long timestamp, String nonce,
                     String signatureOverride, String contentType, Map<String, String> extraHeaders) throws Exception {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    String sig = signatureOverride != null ? signatureOverride : RequestSigning.hmacSha256Hex(secret,
        RequestSigning.stringToSign(method, path, RequestSigning.canonicalQuery(query), Long.toString(timestamp),
            nonce, bytes));
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path
            + (query == null ? "" : "?" + query)))
        .timeout(Duration.ofSeconds(10))
        .header("X-Ax-Key", key).header("X-Ax-Timestamp", Long.toString(timestamp))
        .header("X-Ax-Nonce", nonce).header("X-Ax-Signature", sig);
    extraHeaders.forEach(b::header);
    if ("POST".equals(method)) {
      b.header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofByteArray(bytes));
    } else if ("DELETE".equals(method)) {
      b.DELETE();
    } else if ("PUT".equals(method)) {
      b.header("Content-Type", contentType).PUT(HttpRequest.BodyPublishers.ofByteArray(bytes));
    } else {
      b.GET();
    }
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    JsonObject json = null;
    if (r.body() != null && r.body().startsWith("{")) {
      json = new JsonObject(r.body());
    }
    return new Reply(r.statusCode(), json, r);
  }

  static String newNonce() {
    return UUID.randomUUID().toString().replace("-", "");
  }
}
