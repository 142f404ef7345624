package ax.bench;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** The signed public API as a client sees it: a keep-alive WebClient with a pool of 32 connections. */
public final class Api implements AutoCloseable {
  public static final String TASKS = "/openapi/v1/tasks";
  public static final String BATCH = "/openapi/v1/tasks/batch";
  private static final DateTimeFormatter RFC3339_MS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private final WebClient client;
  private final Signer signer;

  public Api(Vertx vertx, int port, Signer signer, int poolSize) {
    this.signer = signer;
    this.client = WebClient.create(vertx,
        new WebClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(port).setKeepAlive(true)
            .setConnectTimeout(5_000).setIdleTimeout(0).setUserAgent("ax-bench"),
        new PoolOptions().setHttp1MaxSize(poolSize).setMaxWaitQueueSize(-1));
  }

  public static String rfc3339(long epochMs) {
    return RFC3339_MS.format(Instant.ofEpochMilli(epochMs));
  }

  /** The body of one benchmark task. */
  public static JsonObject task(long i, long triggerMs, String callbackUrl) {
    return task(i, triggerMs, callbackUrl, null);
  }

  /** As {@link #task(long, long, String)}, with a webhook when {@code notifyUrl} is not null. */
  public static JsonObject task(long i, long triggerMs, String callbackUrl, String notifyUrl) {
    JsonObject t = new JsonObject()
        .put("task_type", "bench.noop")
        .put("trigger_time", rfc3339(triggerMs))
        .put("callback_url", callbackUrl)
        .put("payload", new JsonObject().put("i", i));
    return notifyUrl == null ? t : t.put("notify_url", notifyUrl);
  }

  /**
   * A processor task for the executors' {@code noop} processor, with a payload of its own, as real work has (a
   * user, an order): equal payloads due together are one task under the fingerprint rule.
   */
  public static JsonObject processorTask(String taskType, long i, long triggerMs) {
    return new JsonObject().put("task_type", taskType).put("processor", "noop").put("timeout_ms", 30_000)
        .put("trigger_time", rfc3339(triggerMs)).put("payload", new JsonObject().put("i", i));
  }

  /** Signed POST /openapi/v1/tasks; the future fails only on transport errors, never on a status code. */
  public Future<HttpResponse<Buffer>> submit(JsonObject task) {
    Buffer body = task.toBuffer();
    Signer.Signed s = signer.sign("POST", TASKS, "", body.getBytes());
    return client.post(TASKS)
        .putHeader("Content-Type", "application/json")
        .putHeader("X-Ax-Key", s.key())
        .putHeader("X-Ax-Timestamp", s.timestamp())
        .putHeader("X-Ax-Nonce", s.nonce())
        .putHeader("X-Ax-Signature", s.signature())
        .timeout(30_000)
        .sendBuffer(body);
  }

  /** Signed POST /openapi/v1/tasks/batch of up to 1000 tasks; answers 200 with one result per task. */
  public Future<HttpResponse<Buffer>> submitBatch(io.vertx.core.json.JsonArray tasks) {
    Buffer body = new JsonObject().put("tasks", tasks).toBuffer();
    Signer.Signed s = signer.sign("POST", BATCH, "", body.getBytes());
    return client.post(BATCH)
        .putHeader("Content-Type", "application/json")
        .putHeader("X-Ax-Key", s.key())
        .putHeader("X-Ax-Timestamp", s.timestamp())
        .putHeader("X-Ax-Nonce", s.nonce())
        .putHeader("X-Ax-Signature", s.signature())
        .timeout(60_000)
        .sendBuffer(body);
  }

  public static final String SCHEDULES = "/openapi/v1/schedules";

  /** Signed POST of a JSON body to {@code path}; fails only on transport errors. */
  public Future<HttpResponse<Buffer>> post(String path, JsonObject json) {
    Buffer body = json.toBuffer();
    Signer.Signed s = signer.sign("POST", path, "", body.getBytes());
    return client.post(path)
        .putHeader("Content-Type", "application/json")
        .putHeader("X-Ax-Key", s.key())
        .putHeader("X-Ax-Timestamp", s.timestamp())
        .putHeader("X-Ax-Nonce", s.nonce())
        .putHeader("X-Ax-Signature", s.signature())
        .timeout(30_000)
        .sendBuffer(body);
  }

  /**
   * Signed GET of {@code path} with a query (one value per name): the canonical query sorts the parameters
   * by name, each percent-encoded as RFC 3986 says (API.md), and is sent as it was signed.
   */
  public Future<HttpResponse<Buffer>> get(String path, java.util.Map<String, String> query) {
    String canonical = new java.util.TreeMap<>(query).entrySet().stream()
        .map(e -> encode(e.getKey()) + "=" + encode(e.getValue()))
        .collect(java.util.stream.Collectors.joining("&"));
    Signer.Signed s = signer.sign("GET", path, canonical, null);
    return client.get(canonical.isEmpty() ? path : path + "?" + canonical)
        .putHeader("X-Ax-Key", s.key())
        .putHeader("X-Ax-Timestamp", s.timestamp())
        .putHeader("X-Ax-Nonce", s.nonce())
        .putHeader("X-Ax-Signature", s.signature())
        .timeout(30_000)
        .send();
  }

  /** RFC 3986 percent-encoding: everything but unreserved characters as %XX of its UTF-8 bytes. */
  static String encode(String s) {
    StringBuilder sb = new StringBuilder();
    for (byte b : s.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
          || c == '_' || c == '~') {
        sb.append(c);
      } else {
        sb.append('%').append(String.format("%02X", b & 0xff));
      }
    }
    return sb.toString();
  }

  /** Signed GET /openapi/v1/tasks/{id}. */
  public Future<HttpResponse<Buffer>> get(String taskId) {
    String path = TASKS + "/" + taskId;
    Signer.Signed s = signer.sign("GET", path, "", null);
    return client.get(path)
        .putHeader("X-Ax-Key", s.key())
        .putHeader("X-Ax-Timestamp", s.timestamp())
        .putHeader("X-Ax-Nonce", s.nonce())
        .putHeader("X-Ax-Signature", s.signature())
        .timeout(30_000)
        .send();
  }

  /** "201" for success, otherwise "<status> <code>" from the problem JSON, or the exception class. */
  public static String outcome(HttpResponse<Buffer> r) {
    if (r.statusCode() == 201) {
      return "201";
    }
    String code = "";
    try {
      JsonObject p = r.bodyAsJsonObject();
      if (p != null && p.getString("code") != null) {
        code = " " + p.getString("code");
      }
    } catch (RuntimeException ignored) {
      // not JSON
    }
    return r.statusCode() + code;
  }

  @Override
  public void close() {
    client.close();
  }
}
