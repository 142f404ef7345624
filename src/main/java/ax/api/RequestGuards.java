package ax.api;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.SecurityPolicyHandler;

/**
 * Cheap checks before the body is read: a declared body larger than the endpoint allows is refused
 * with 413 without reading it, and a body that is not JSON with 415. BodyHandler enforces the global
 * cap for chunked bodies, and the task parser the 64 KiB payload rule.
 *
 * <p>It is a {@link SecurityPolicyHandler} because Vert.x Web only lets handlers of that kind run
 * before the body handler.
 */
public final class RequestGuards implements SecurityPolicyHandler {
  /** One task: a 64 KiB payload plus every other field. */
  public static final long SINGLE_BODY_LIMIT = 96 * 1024;
  /** A batch of up to 1000 tasks. */
  public static final long BATCH_BODY_LIMIT = 8L * 1024 * 1024;

  static long limitFor(String path) {
    return path.endsWith("/tasks/batch") ? BATCH_BODY_LIMIT : SINGLE_BODY_LIMIT;
  }

  @Override
  public void handle(RoutingContext ctx) {
    var req = ctx.request();
    String length = req.getHeader("content-length");
    if (length != null) {
      try {
        if (Long.parseLong(length.trim()) > limitFor(req.path())) {
          tooLarge(ctx);
          return;
        }
      } catch (NumberFormatException e) {
        Problem.validation("Content-Length is not a number").send(ctx);
        return;
      }
    }
    boolean hasBody = req.method() == HttpMethod.POST || req.method() == HttpMethod.PUT;
    String type = req.getHeader("content-type");
    if (hasBody && length != null && !"0".equals(length.trim())
        && (type == null || !type.toLowerCase().startsWith("application/json"))) {
      new Problem(415, "unsupported_media_type", "Unsupported media type",
          "send the body as application/json").send(ctx);
      return;
    }
    ctx.next();
  }

  private static void tooLarge(RoutingContext ctx) {
    ctx.response().putHeader("connection", "close");
    new Problem(413, "payload_too_large", "Payload too large",
        "the body exceeds " + limitFor(ctx.request().path()) + " bytes for this endpoint").send(ctx);
  }
}
