package ax.e2e;

import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** GET /health of a node; an unreachable node reads as {@code {"status":"DOWN"}}. */
final class Health {
  // HTTP/1.1: the API speaks nothing else (no h2c), and an upgrade offer on every request is noise
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2)).build();

  private Health() {
  }

  static JsonObject of(int port) {
    return get(port, "/health");
  }

  static JsonObject detail(int port) {
    return get(port, "/health?detail=true");
  }

  static String metrics(int port) throws Exception {
    HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
        .timeout(Duration.ofSeconds(5)).build();
    try {
      return HTTP.send(get, HttpResponse.BodyHandlers.ofString()).body();
    } catch (java.io.IOException closedUnderUs) {
      // a pooled keep-alive connection the node closed as we reused it (idle for 60 s): once more
      return HTTP.send(get, HttpResponse.BodyHandlers.ofString()).body();
    }
  }

  /** One series of a node's /metrics ({@code labels} as written there, e.g. {@code cause="x"}); 0 when absent. */
  static double metric(int port, String name, String labels) throws Exception {
    String series = labels.isEmpty() ? Pattern.quote(name) : Pattern.quote(name) + "\\{" + Pattern.quote(labels) + ",?\\}";
    Matcher m = Pattern.compile("(?m)^" + series + " ([0-9.E+-]+)$").matcher(metrics(port));
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  /** The HTTP status of {@code path} ({@code /health/ready}, {@code /health/live}); -1 when unreachable. */
  static int status(int port, String path) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
          .timeout(Duration.ofSeconds(3)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (Exception e) {
      return -1;
    }
  }

  /** Waits up to {@code timeoutMs} for {@code path} to answer {@code expected}; the last status seen. */
  static int await(int port, String path, int expected, long timeoutMs) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    int last;
    while ((last = status(port, path)) != expected && System.currentTimeMillis() < deadline) {
      Thread.sleep(100);
    }
    return last;
  }

  private static JsonObject get(int port, String path) {
    try {
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
          .timeout(Duration.ofSeconds(3)).build(), HttpResponse.BodyHandlers.ofString());
      return new JsonObject(r.body());
    } catch (Exception e) {
      return new JsonObject().put("status", "DOWN");
    }
  }
}
