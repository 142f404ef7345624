package ax.api;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/** Reading a JSON request body and writing a JSON answer, the same way for every operation. */
final class HttpJson {
  private HttpJson() {
  }

  /**
   * The body as a JSON object; null when there is none or it is JSON but not an object.
   *
   * @throws InvalidRequest when the body breaks {@link JsonLimits} (duplicate keys, too deep, NUL, not
   *                        UTF-8 JSON)
   */
  static JsonObject bodyObject(RoutingContext ctx) throws InvalidRequest {
    return decode(ctx.body() == null ? null : ctx.body().buffer());
  }

  /** {@link #bodyObject} of these bytes. */
  static JsonObject decode(Buffer body) throws InvalidRequest {
    if (body == null || body.length() == 0) {
      return null;
    }
    JsonLimits.check(body.getBytes());
    try {
      return body.toJsonObject();
    } catch (DecodeException | ClassCastException e) {
      return null;
    }
  }

  /**
   * Answers {@code body} as JSON. Encoding cannot fail for what the API stores (payload depth and
   * characters are checked on the way in); if it ever does, the client gets a 500 rather than no answer.
   */
  static void send(RoutingContext ctx, int status, JsonObject body) {
    String text;
    try {
      text = body.encode();
    } catch (RuntimeException e) {
      ctx.fail(e);
      return;
    }
    ctx.response().setStatusCode(status).putHeader("content-type", "application/json").end(text);
  }
}
