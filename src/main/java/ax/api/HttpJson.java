package ax.api;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.util.List;

/** Reading a JSON request body and writing a JSON answer, the same way for every operation. */
final class HttpJson {
  private HttpJson() {
  }

  /** A decoded body and the places in it that break a rule ({@link JsonLimits#check}). */
  record Checked(JsonObject body, List<JsonLimits.Flaw> flaws) {
  }

  /**
   * The body as a JSON object; null when there is none or it is JSON but not an object.
   *
   * @throws InvalidRequest when the body breaks {@link JsonLimits} anywhere (duplicate keys, too deep,
   *                        NUL, not UTF-8 JSON)
   */
  static JsonObject bodyObject(RoutingContext ctx) throws InvalidRequest {
    return decode(ctx.body() == null ? null : ctx.body().buffer());
  }

  /** {@link #bodyObject} of these bytes. */
  static JsonObject decode(Buffer body) throws InvalidRequest {
    Checked checked = decodeWithFlaws(body);
    if (!checked.flaws().isEmpty()) {
      throw checked.flaws().get(0).refusal();
    }
    return checked.body();
  }

  /**
   * The body with the places that break a rule left for the caller to judge one by one (a batch refuses
   * only the elements they are in).
   *
   * @throws InvalidRequest when the body as a whole is not UTF-8 JSON or nests too deep
   */
  static Checked decodeWithFlaws(Buffer body) throws InvalidRequest {
    if (body == null || body.length() == 0) {
      return new Checked(null, List.of());
    }
    JsonLimits.Read read = JsonLimits.read(body.getBytes());
    return new Checked(read.value() instanceof JsonObject o ? o : null, read.flaws());
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
