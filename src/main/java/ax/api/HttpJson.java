package ax.api;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/** Reading a JSON request body and writing a JSON answer, the same way for every operation. */
final class HttpJson {
  private HttpJson() {
  }

  /** The body as a JSON object, or null when it is missing, not JSON, or JSON but not an object. */
  static JsonObject bodyObject(RoutingContext ctx) {
    try {
      return ctx.body() == null || ctx.body().buffer() == null ? null : ctx.body().asJsonObject();
    } catch (DecodeException | ClassCastException e) {
      return null;
    }
  }

  static void send(RoutingContext ctx, int status, JsonObject body) {
    ctx.response().setStatusCode(status).putHeader("content-type", "application/json").end(body.encode());
  }
}
