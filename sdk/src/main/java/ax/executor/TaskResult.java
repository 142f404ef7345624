package ax.executor;

import ax.protocol.TaskOutcome;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Map;

/**
 * The outcome of one execution, as sent in a result batch; {@code traceparent} is the trace context the
 * execution ran under (its dispatch's), sent back so the scheduler's result span joins the same trace.
 */
record TaskResult(String taskId, int attempt, int shardIndex, Status status, Object result, String error,
                  long durationMs, String traceparent) {

  TaskResult(String taskId, int attempt, int shardIndex, Status status, Object result, String error,
             long durationMs) {
    this(taskId, attempt, shardIndex, status, result, error, durationMs, null);
  }

  enum Status { SUCCESS, FAILED }

  DedupeKey key() {
    return new DedupeKey(taskId, attempt, shardIndex);
  }

  /**
   * A SUCCESS carrying {@code value} converted to JSON; a FAILED instead if the value is not JSON-like
   * or too large (so one bad handler result cannot stall the whole batch on the server).
   */
  static TaskResult success(TaskContext ctx, Object value, long durationMs) {
    Object json;
    try {
      json = toJson(value);
    } catch (IllegalArgumentException e) {
      return failure(ctx, e.getMessage(), durationMs);
    }
    int size = json == null ? 4 : encodedLength(json);
    if (size > TaskOutcome.MAX_RESULT_BYTES) {
      return failure(ctx, "result too large: " + size + " bytes (max " + TaskOutcome.MAX_RESULT_BYTES + ")",
          durationMs);
    }
    return new TaskResult(ctx.taskId(), ctx.attempt(), ctx.shardIndex(), Status.SUCCESS, json, null, durationMs,
        ctx.traceparent());
  }

  static TaskResult failure(TaskContext ctx, String error, long durationMs) {
    return new TaskResult(ctx.taskId(), ctx.attempt(), ctx.shardIndex(), Status.FAILED, null,
        error == null ? "failed" : error, durationMs, ctx.traceparent());
  }

  JsonObject toJson() {
    return new TaskOutcome(taskId, attempt, shardIndex, status == Status.SUCCESS, result, error, durationMs,
        traceparent).toJson();
  }

  /** Converts what a handler returned into a value JsonObject accepts. */
  static Object toJson(Object value) {
    if (value == null || value instanceof JsonObject || value instanceof JsonArray || value instanceof String
        || value instanceof Number || value instanceof Boolean) {
      return value;
    }
    if (value instanceof Map<?, ?> map) {
      JsonObject json = new JsonObject();
      map.forEach((k, v) -> json.put(String.valueOf(k), toJson(v)));
      return json;
    }
    if (value instanceof List<?> list) {
      JsonArray json = new JsonArray();
      list.forEach(v -> json.add(toJson(v)));
      return json;
    }
    throw new IllegalArgumentException("unsupported result type " + value.getClass().getName()
        + " (return a JsonObject, JsonArray, Map, List, String, Number, Boolean or null)");
  }

  private static int encodedLength(Object json) {
    if (json instanceof JsonObject o) {
      return o.toBuffer().length();
    }
    if (json instanceof JsonArray a) {
      return a.toBuffer().length();
    }
    return new JsonArray().add(json).toBuffer().length();
  }
}
