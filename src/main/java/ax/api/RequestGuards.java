package ax.api;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.SecurityPolicyHandler;

import java.util.Locale;

/**
 * Cheap checks before the body is read: a declared body larger than the endpoint allows is refused
 * with 413 without reading it, and a body (declared or chunked) that is not {@code application/json}
 * with 415. {@link BodyReader} enforces the same limits on the bytes of a chunked body, and the task
 * parser the 64 KiB payload rule.
 *
 * <p>It is a {@link SecurityPolicyHandler} because Vert.x Web only lets handlers of that kind run
 * before the body handler.
 */
public final class RequestGuards implements SecurityPolicyHandler {
  /** One task (or a schedule's template): a 64 KiB payload plus every other field. */
  public static final long SINGLE_BODY_LIMIT = 96 * 1024;
  /** A batch of up to 1000 tasks. */
  public static final long BATCH_BODY_LIMIT = 8L * 1024 * 1024;
  /** Endpoints that take no body (reads, cancel, health, metrics): a stray one is tolerated up to this. */
  public static final long NO_BODY_LIMIT = 1024;

  /** How large a body the endpoint takes. */
  static long limitFor(HttpMethod method, String path) {
    if (method == HttpMethod.PUT && path.startsWith("/openapi/v1/schedules/")) {
      return SINGLE_BODY_LIMIT; // a schedule's new definition
    }
    if (method != HttpMethod.POST) {
      return NO_BODY_LIMIT;
    }
    if (path.endsWith("/tasks/batch")) {
      return BATCH_BODY_LIMIT;
    }
    // A schedule carries a task template: the same room as one task.
    return path.endsWith("/tasks") || path.endsWith("/tasks/sync") || path.endsWith("/schedules")
        ? SINGLE_BODY_LIMIT : NO_BODY_LIMIT;
  }

  @Override
  public void handle(RoutingContext ctx) {
    HttpServerRequest req = ctx.request();
    long limit = limitFor(req.method(), req.path());
    String length = req.getHeader("content-length");
    if (length != null) {
      try {
        if (Long.parseLong(length.trim()) > limit) {
          tooLarge(ctx, limit);
          return;
        }
      } catch (NumberFormatException e) {
        Problem.validation("Content-Length is not a number").sendAndClose(ctx);
        return;
      }
    }
    if (req.headers().getAll("host").size() > 1) { // RFC 9112 3.2: answer 400
      Problem.validation("Host appears more than once").sendAndClose(ctx);
      return;
    }
    String transferEncoding = req.getHeader("transfer-encoding");
    if (transferEncoding != null && !transferEncoding.trim().equalsIgnoreCase("chunked")) {
      // a coding (gzip, deflate) would be read as plain JSON; no client of this API needs one
      Problem.validation("Transfer-Encoding other than chunked is not supported").sendAndClose(ctx);
      return;
    }
    boolean chunked = transferEncoding != null;
    boolean hasBody = chunked || (length != null && !"0".equals(length.trim()));
    String contentType = req.getHeader("content-type");
    if (hasBody && !isJson(contentType)) {
      new Problem(415, "unsupported_media_type", "Unsupported media type",
          "send the body as application/json").sendAndClose(ctx);
      return;
    }
    if (contentType != null && isJson(contentType) && !contentType.startsWith("application/json")) {
      // media types are case-insensitive (RFC 9110 8.3.1); the schema validator compares them exactly
      req.headers().set("content-type", contentType.toLowerCase(Locale.ROOT).trim());
    }
    ctx.next();
  }

  /** {@code application/json}, optionally with parameters ({@code ; charset=utf-8}); nothing else. */
  static boolean isJson(String contentType) {
    if (contentType == null) {
      return false;
    }
    int semicolon = contentType.indexOf(';');
    String type = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim();
    return type.toLowerCase(Locale.ROOT).equals("application/json");
  }

  private static void tooLarge(RoutingContext ctx, long limit) {
    new Problem(413, "payload_too_large", "Payload too large",
        "the body exceeds " + limit + " bytes for this endpoint").sendAndClose(ctx);
  }
}
