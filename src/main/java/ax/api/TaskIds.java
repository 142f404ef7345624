package ax.api;

import io.vertx.ext.web.RoutingContext;

import java.util.OptionalLong;
import java.util.function.LongConsumer;
import java.util.regex.Pattern;

/**
 * The {@code task_id} path parameter as openapi.yaml's {@code TaskId} defines it: a decimal string of
 * 1–19 digits. Checked here as well as by the router because the hottest operations skip the router's
 * validation ({@code ApiVerticle.SELF_VALIDATED}), and all three operations must answer alike.
 */
final class TaskIds {
  private static final Pattern DECIMAL = Pattern.compile("[0-9]{1,19}");

  private TaskIds() {
  }

  /**
   * The id, or empty for a well-formed id that cannot name a task (above 2^63-1, which the contract's
   * pattern allows): that one is simply not found.
   *
   * @throws InvalidRequest {@code validation_failed} when {@code raw} is not 1–19 digits
   */
  static OptionalLong parse(String raw) throws InvalidRequest {
    return parse(raw, "task_id");
  }

  /**
   * Runs {@code then} with the id in path parameter {@code param}; answers 400 itself when it is
   * malformed and 404 ({@code missing}) when it is well formed but cannot name anything.
   */
  static void withPathId(RoutingContext ctx, String param, String missing, LongConsumer then) {
    OptionalLong id;
    try {
      id = parse(ctx.pathParam(param), param);
    } catch (InvalidRequest e) {
      e.problem().send(ctx);
      return;
    }
    if (id.isPresent()) {
      then.accept(id.getAsLong());
    } else {
      Problem.notFound(missing).send(ctx);
    }
  }

  /** As {@link #parse(String)} for another id of the same form (a schedule's), named {@code field}. */
  static OptionalLong parse(String raw, String field) throws InvalidRequest {
    if (raw == null || !DECIMAL.matcher(raw).matches()) {
      throw InvalidRequest.field(field, "must be a decimal string of 1-19 digits");
    }
    try {
      return OptionalLong.of(Long.parseLong(raw));
    } catch (NumberFormatException tooLarge) {
      return OptionalLong.empty();
    }
  }
}
