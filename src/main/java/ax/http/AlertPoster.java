package ax.http;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

import java.util.concurrent.TimeUnit;

/**
 * Posts built-in alert messages to {@code AX_ALERT_WEBHOOK_URL} over a client of its own, so a slow chat
 * service never takes the connections that fire tasks or deliver webhooks.
 *
 * <p>The URL is the operator's configuration, not something an API caller chose: the callback
 * allow-list and the resolve-then-refuse rules (which exist because tenants name callback and notify
 * URLs) do not apply to it. Redirects are not followed all the same; {@code timeoutMs} bounds one post.
 * Never fails its future: every problem is a failed {@link Result}.
 */
public final class AlertPoster {
  /** What one post produced: {@code status} 0 when no response came. */
  public record Result(int status, String error) {
    public boolean ok() {
      return status >= 200 && status < 300;
    }
  }

  private final HttpClient client;
  private final String url;
  private final int timeoutMs;

  public AlertPoster(HttpClient client, String url, int timeoutMs) {
    this.client = client;
    this.url = url;
    this.timeoutMs = timeoutMs;
  }

  public Future<Result> post(String body) {
    RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setAbsoluteURI(url)
        .setFollowRedirects(false).setConnectTimeout(timeoutMs).setIdleTimeout(timeoutMs)
        .putHeader("content-type", "application/json; charset=utf-8");
    return client.request(options)
        .compose(req -> req.send(Buffer.buffer(body)))
        .compose(resp -> resp.body().map(b -> {
          if (resp.statusCode() >= 200 && resp.statusCode() < 300) {
            return new Result(resp.statusCode(), null);
          }
          String snippet = b.length() > 256 ? b.getString(0, 256) : b.toString();
          return new Result(resp.statusCode(), "HTTP " + resp.statusCode() + (snippet.isBlank() ? "" : ": " + snippet));
        }))
        .timeout(timeoutMs, TimeUnit.MILLISECONDS)
        .recover(e -> Future.succeededFuture(new Result(0, "post failed: " + e.getMessage())));
  }
}
