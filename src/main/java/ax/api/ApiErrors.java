package ax.api;

import ax.logging.ThrottledWarning;
import ax.store.StoreErrors;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.HttpException;
import io.vertx.json.schema.OutputUnit;
import io.vertx.openapi.validation.SchemaValidationException;
import io.vertx.openapi.validation.ValidatorException;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Maps every failure that reaches the router — validator rejections, body limits, unknown routes,
 * database outages, bugs — to a problem+json answer. Validation errors name the offending field
 * (from the schema validator's output units, whose top-level message is often unhelpful).
 */
public final class ApiErrors {
  private static final Logger LOG = Logger.getLogger(ApiErrors.class.getName());
  /** While PostgreSQL is down every request fails the same way: one line per 10 s, the others counted. */
  private static final ThrottledWarning DATABASE_UNAVAILABLE = new ThrottledWarning(LOG);

  private ApiErrors() {
  }

  public static void handle(RoutingContext ctx) {
    if (MalformedHttp.isDecoderFailure(ctx.failure())) {
      // the body's framing broke mid-stream: answer (if the connection still takes it) and close
      Problem.validation("the body is not well-formed HTTP/1.1 framing: "
          + String.valueOf(ctx.failure().getMessage())).sendAndCloseNow(ctx);
      return;
    }
    toProblem(ctx).send(ctx);
  }

  static Problem toProblem(RoutingContext ctx) {
    Throwable failure = ctx.failure();
    int status = ctx.statusCode();
    if (failure instanceof InvalidRequest ir) {
      return ir.problem();
    }
    if (failure instanceof HttpException he) {
      status = he.getStatusCode();
      if (he.getCause() instanceof ValidatorException ve) {
        return Problem.validation(describe(ve));
      }
    }
    if (failure != null && isDatabaseUnavailable(failure)) {
      DATABASE_UNAVAILABLE.log("database unavailable while serving " + ctx.request().path() + "; answered 503", failure);
      return Problem.unavailable("the task store is unavailable; retry later (a request in flight when it went may have been applied: retry a creation with the same biz_key)");
    }
    return switch (status) {
      case 400 -> Problem.validation("the request is malformed");
      case 401 -> Problem.unauthorized("signature_mismatch", "authentication required");
      case 404 -> Problem.notFound("no such resource");
      case 405 -> new Problem(405, "method_not_allowed", "Method not allowed", ctx.request().method() + " is not allowed here");
      case 413 -> new Problem(413, "payload_too_large", "Payload too large", "the request body exceeds the limit");
      case 415 -> new Problem(415, "unsupported_media_type", "Unsupported media type", "send application/json");
      case 503 -> Problem.unavailable("the server is starting or draining; retry later");
      default -> {
        LOG.log(Level.SEVERE, "unhandled failure on " + ctx.request().method() + " " + ctx.request().path(), failure);
        yield Problem.internal();
      }
    };
  }

  /** True for connection-level failures (PostgreSQL down or restarting), which deserve a 503, not a 500. */
  public static boolean isDatabaseUnavailable(Throwable t) {
    return StoreErrors.isUnavailable(t);
  }

  static String describe(ValidatorException ve) {
    if (ve instanceof SchemaValidationException sve && sve.getOutputUnit() != null) {
      Set<String> parts = new LinkedHashSet<>();
      collect(sve.getOutputUnit(), parts);
      if (!parts.isEmpty()) {
        return String.join("; ", parts);
      }
    }
    return ve.getMessage();
  }

  private static void collect(OutputUnit unit, Set<String> out) {
    if (unit.getErrors() != null && !unit.getErrors().isEmpty()) {
      unit.getErrors().forEach(u -> collect(u, out));
      return;
    }
    if (unit.getError() != null) {
      String where = unit.getInstanceLocation() == null || unit.getInstanceLocation().isEmpty()
          || unit.getInstanceLocation().equals("#") ? "body" : unit.getInstanceLocation().replaceFirst("^#?/", "");
      out.add(where + ": " + unit.getError());
    }
  }
}
