package ax.api;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * RFC 9457 problem details: every error ax answers is {@code application/problem+json} with a stable
 * machine word in {@code code}. Details never include stack traces or internal state.
 *
 * <p>{@code type} is {@code urn:ax:problem:<code>}: a stable identifier that names the problem without
 * promising a web page (RFC 9457 allows non-resolvable type URIs; an https URI on a domain ax does not
 * serve would invite clients to fetch it).
 */
public record Problem(int status, String code, String title, String detail) {

  public static final String CONTENT_TYPE = "application/problem+json";

  public static Problem validation(String detail) {
    return new Problem(400, "validation_failed", "Invalid request", detail);
  }

  public static Problem unauthorized(String code, String detail) {
    return new Problem(401, code, "Unauthorized", detail);
  }

  public static Problem notFound(String detail) {
    return new Problem(404, "not_found", "Not found", detail);
  }

  public static Problem unavailable(String detail) {
    return new Problem(503, "service_unavailable", "Service unavailable", detail);
  }

  public static Problem internal() {
    return new Problem(500, "internal_error", "Internal error", "the server failed to handle the request; it was logged");
  }

  public JsonObject toJson() {
    return new JsonObject()
        .put("type", "urn:ax:problem:" + code)
        .put("title", title)
        .put("status", status)
        .put("detail", detail)
        .put("code", code);
  }

  public void send(RoutingContext ctx) {
    send(ctx, toJson());
  }

  /**
   * Sends and then closes the connection, for a refusal before the body is read: HTTP/1.1 would
   * otherwise keep the connection open until the client has sent the unread body (a hostile client
   * never does), and the next bytes on it would be that body, not a request. The close waits, within
   * {@link LingeringClose}'s bounds, for the body still on its way, so the client reads the answer
   * instead of a reset.
   */
  public void sendAndClose(RoutingContext ctx) {
    if (ctx.response().ended() || ctx.response().headWritten()) {
      return;
    }
    answerWithClose(ctx).onComplete(done -> LingeringClose.afterBody(ctx.vertx(), ctx.request()));
  }

  /**
   * Sends and closes at once, reading nothing more: for a body too slow to wait for, or one whose
   * framing broke.
   */
  public void sendAndCloseNow(RoutingContext ctx) {
    if (ctx.response().ended() || ctx.response().headWritten()) {
      return;
    }
    answerWithClose(ctx).onComplete(done -> ctx.request().connection().close());
  }

  private Future<Void> answerWithClose(RoutingContext ctx) {
    return ctx.response().putHeader("connection", "close").setStatusCode(status).putHeader("content-type", CONTENT_TYPE)
        .end(toJson().encode());
  }

  /** Sends with extra members (e.g. {@code current_status}). */
  public void send(RoutingContext ctx, JsonObject body) {
    if (ctx.response().ended() || ctx.response().headWritten()) {
      return;
    }
    ctx.response().setStatusCode(status).putHeader("content-type", CONTENT_TYPE).end(body.encode());
  }
}
