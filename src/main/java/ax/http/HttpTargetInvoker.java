package ax.http;

import ax.signing.OutboundSignature;
import ax.task.HttpTask;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import ax.json.StoredJson;
import io.vertx.core.json.Json;
import io.vertx.core.net.SocketAddress;

import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import ax.clock.Rfc3339;

/**
 * Executes an HTTP target: POSTs the API.md body to {@code callback_url} over the pooled keep-alive
 * client, signed with the submitting key's secret. The URL is checked again here (it was checked at
 * submission, but DNS may have changed): every resolved address must pass, and the connection goes to
 * the checked address. Redirects are not followed. {@code timeout_ms} bounds the whole exchange.
 * Never fails its future: every problem becomes a failed {@link Outcome}. The caller hears when the
 * request has been written to the connection (the hand-over, R9's {@code schedule_delay}), before the
 * answer comes.
 */
public final class HttpTargetInvoker {
  public static final int MAX_RESULT_BYTES = 64 * 1024;

  /**
   * What one call produced; {@code resultJson} is JSON text (a string value when the body was not JSON).
   * {@code sent}: the request was written to the connection (whatever came back, if anything).
   */
  public record Outcome(boolean success, String resultJson, String error, boolean timedOut, boolean sent) {
    public static Outcome notSent(String error) {
      return new Outcome(false, null, error, false, false);
    }
  }

  private final Vertx vertx;
  private final HttpClient client;
  private final CallbackUrlPolicy policy;
  private final HostResolver resolver;

  public HttpTargetInvoker(Vertx vertx, HttpClient client, CallbackUrlPolicy policy, HostResolver resolver) {
    this.vertx = vertx;
    this.client = client;
    this.policy = policy;
    this.resolver = resolver;
  }

  /** A callback URL checked against the allow-list and taken apart once; bursts reuse the same few URLs. */
  private record Target(CallbackUrlPolicy.Verdict syntax, String host, int port, boolean tls, String path) {
  }

  private final BoundedMemo<String, Target> targets = new BoundedMemo<>(10_000);

  private Target target(String url) {
    Target t = targets.get(url);
    if (t != null) {
      return t;
    }
    CallbackUrlPolicy.Verdict syntax = policy.checkUrl(url);
    if (!syntax.allowed()) {
      t = new Target(syntax, null, 0, false, null);
    } else {
      URI uri = URI.create(url);
      boolean tls = "https".equalsIgnoreCase(uri.getScheme());
      int port = uri.getPort() > 0 ? uri.getPort() : (tls ? 443 : 80);
      String path = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
          + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
      t = new Target(syntax, uri.getHost(), port, tls, path);
    }
    targets.put(url, t);
    return t;
  }

  /**
   * What one signed POST produced: {@code status} 0 when no response came (refused, unreachable, timed
   * out); {@code resultJson} the 2xx body as stored JSON; {@code error} why it is not a 2xx;
   * {@code sent}: the request was written to the connection (whatever came back, if anything).
   */
  public record Posted(int status, String resultJson, String error, boolean timedOut, boolean sent) {
    static Posted notSent(String error) {
      return new Posted(0, null, error, false, false);
    }

    public boolean ok() {
      return status >= 200 && status < 300;
    }

    /** What it means for an HTTP target: the result kept only from a 2xx. */
    Outcome outcome() {
      return new Outcome(ok(), ok() ? resultJson : null, error, timedOut, sent);
    }
  }

  /**
   * @param onSent run once, on the request's context, when the request has been written to the connection
   *               (not run when it never was, or when {@code timeout_ms} passed first)
   */
  public Future<Outcome> invoke(HttpTask task, String secret, long firedAtMs, Runnable onSent) {
    return invoke(task, secret, firedAtMs, onSent, null);
  }

  /**
   * As {@link #invoke(HttpTask, String, long, Runnable)} with W3C trace headers ({@code traceparent},
   * {@code tracestate}) added to the request; null or empty adds none.
   */
  public Future<Outcome> invoke(HttpTask task, String secret, long firedAtMs, Runnable onSent,
                                Map<String, String> traceHeaders) {
    return post("callback_url", task.callbackUrl(), task.taskId(), requestBody(task, firedAtMs), secret, firedAtMs,
        task.timeoutMs(), onSent, traceHeaders)
        .map(Posted::outcome);
  }

  /**
   * As {@link #invoke(HttpTask, String, long, Runnable)}, to {@code port} on this host's loopback without the
   * allow-list and the DNS lookup ({@link CallPathWarmUp}'s receiver, which the policy would refuse).
   */
  Future<Outcome> invokeLoopback(HttpTask task, int port, String secret, long firedAtMs) {
    Target loopback = new Target(CallbackUrlPolicy.Verdict.ok(), "127.0.0.1", port, false, "/");
    return send(loopback, InetAddress.getLoopbackAddress(), task.taskId(),
        requestBody(task, firedAtMs).getBytes(StandardCharsets.UTF_8), secret, firedAtMs, task.timeoutMs(), () -> { }, null)
        .map(Posted::outcome);
  }

  /** As {@link #post(String, String, long, String, String, long, int, Runnable, Map)}, without a hand-over hook or trace. */
  public Future<Posted> post(String field, String url, long taskId, String body, String secret, long signedAtMs,
                             int timeoutMs) {
    return post(field, url, taskId, body, secret, signedAtMs, timeoutMs, () -> { }, null);
  }

  /**
   * POSTs {@code body} to {@code url} (named {@code field} in errors), signed with {@code secret} at
   * {@code signedAtMs}, the URL checked again against the policy and the addresses it resolves to now;
   * {@code timeoutMs} bounds the whole exchange. Never fails its future. HTTP targets and webhooks both
   * go through here. {@code traceHeaders} (W3C {@code traceparent}/{@code tracestate}, null for none) are
   * added to the request as they are.
   */
  public Future<Posted> post(String field, String url, long taskId, String body, String secret, long signedAtMs,
                             int timeoutMs, Runnable onSent, Map<String, String> traceHeaders) {
    Target target = target(url);
    if (!target.syntax().allowed()) {
      return Future.succeededFuture(Posted.notSent(field + " refused at send time: " + target.syntax().detail()));
    }
    String host = target.host();
    return resolver.resolve(host)
        .compose(addresses -> {
          CallbackUrlPolicy.Verdict v = policy.checkResolved(host, addresses);
          if (!v.allowed()) {
            return Future.succeededFuture(Posted.notSent(field + " refused at send time: " + v.detail()));
          }
          return send(target, addresses.get(0), taskId, body.getBytes(StandardCharsets.UTF_8), secret, signedAtMs,
              timeoutMs, onSent, traceHeaders);
        })
        .recover(e -> Future.succeededFuture(Posted.notSent("cannot resolve " + host + ": " + e.getMessage())));
  }

  private Future<Posted> send(Target target, InetAddress address, long taskId, byte[] body, String secret,
                              long signedAtMs, int timeoutMs, Runnable onSent, Map<String, String> traceHeaders) {
    boolean tls = target.tls();
    int port = target.port();
    String path = target.path();
    RequestOptions options = new RequestOptions()
        .setMethod(HttpMethod.POST)
        .setServer(SocketAddress.inetSocketAddress(port, address.getHostAddress()))
        .setHost(target.host())
        .setPort(port)
        .setSsl(tls)
        .setURI(path)
        .setFollowRedirects(false)
        .putHeader("content-type", "application/json")
        .putHeader("x-ax-task-id", Long.toString(taskId))
        .putHeader("x-ax-signature", OutboundSignature.header(secret, signedAtMs, body));
    if (traceHeaders != null) {
      traceHeaders.forEach(options::putHeader);
    }

    Promise<Posted> result = Promise.promise();
    AtomicBoolean written = new AtomicBoolean();
    long timer = vertx.setTimer(timeoutMs, id -> result.tryComplete(
        new Posted(0, null, "no response within timeout_ms=" + timeoutMs, true, written.get())));
    client.request(options)
        .compose(req -> {
          // Failures reach us through send()'s future and the response's handlers; without this a
          // reset (our timeout) is reported again by Vert.x as an unhandled exception.
          req.exceptionHandler(e -> { });
          if (result.future().isComplete()) { // timed out while connecting: never send it
            req.reset();
            return Future.failedFuture("timed out before the request was sent");
          }
          result.future().onComplete(done -> {
            if (done.result() != null && done.result().timedOut()) {
              req.reset(); // give the connection back; the receiver sees the request aborted
            }
          });
          // send(body) is end(body) + response(); split so the write's completion marks the hand-over
          req.end(Buffer.buffer(body)).onSuccess(v -> {
            if (!result.future().isComplete() && written.compareAndSet(false, true)) {
              onSent.run();
            }
          });
          return req.response();
        })
        .compose(this::readLimited)
        .onComplete(ar -> {
          vertx.cancelTimer(timer);
          result.tryComplete(ar.succeeded() ? ar.result()
              : new Posted(0, null, "request failed: " + ar.cause().getMessage(), false, written.get()));
        });
    return result.future();
  }

  private Future<Posted> readLimited(HttpClientResponse resp) {
    Promise<Posted> p = Promise.promise();
    Buffer acc = Buffer.buffer();
    boolean[] truncated = {false};
    resp.handler(chunk -> {
      int room = MAX_RESULT_BYTES - acc.length();
      if (chunk.length() <= room) {
        acc.appendBuffer(chunk);
      } else {
        if (room > 0) {
          acc.appendBuffer(chunk.getBuffer(0, room));
        }
        truncated[0] = true;
      }
    });
    resp.exceptionHandler(e -> p.tryComplete(
        new Posted(0, null, "reading the response failed: " + e.getMessage(), false, true)));
    resp.endHandler(v -> {
      int code = resp.statusCode();
      if (code >= 200 && code < 300) {
        p.tryComplete(new Posted(code, resultJson(acc, truncated[0]), null, false, true));
      } else {
        String snippet = acc.length() > 512 ? acc.getString(0, 512) : acc.toString();
        p.tryComplete(new Posted(code, null, "HTTP " + code + (snippet.isBlank() ? "" : ": " + snippet), false, true));
      }
    });
    return p.future();
  }

  /**
   * The body as stored JSON: itself when it is complete JSON the store can hold ({@link StoredJson}),
   * otherwise a JSON string of its text (what cannot be stored replaced).
   */
  static String resultJson(Buffer body, boolean truncated) {
    if (body.length() == 0) {
      return null;
    }
    String text = body.toString(StandardCharsets.UTF_8);
    return truncated ? StoredJson.asString(text) : StoredJson.storable(text);
  }

  static String requestBody(HttpTask t, long firedAtMs) {
    return "{\"task_id\":\"" + t.taskId() + "\""
        + ",\"task_type\":" + Json.encode(t.taskType())
        + ",\"payload\":" + (t.payloadJson() == null ? "null" : t.payloadJson())
        + ",\"attempt\":" + t.attempt()
        + ",\"trigger_time\":\"" + Rfc3339.format(t.triggerTimeMs()) + "\""
        + ",\"fired_at\":\"" + Rfc3339.format(firedAtMs) + "\"}";
  }
}
