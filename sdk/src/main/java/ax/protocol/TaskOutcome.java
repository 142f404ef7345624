package ax.protocol;

import io.vertx.core.json.JsonObject;

/**
 * The outcome of one execution, as reported in a {@link ResultBatch}. {@code result} is any JSON value of
 * at most {@link #MAX_RESULT_BYTES} bytes when encoded; a failure carries an {@code error} text.
 * {@code traceparent} (W3C, optional, null when absent) is the trace context the execution ran under,
 * usually the one its dispatch carried: the scheduler parents its result span on it.
 */
public record TaskOutcome(String taskId, int attempt, int shardIndex, boolean success, Object result, String error,
                          long durationMs, String traceparent) {
  public static final int MAX_RESULT_BYTES = 64 * 1024;
  public static final int MAX_ERROR_CHARS = 2_000;
  public static final String SUCCESS = "SUCCESS";
  public static final String FAILED = "FAILED";

  /** An outcome without trace context. */
  public TaskOutcome(String taskId, int attempt, int shardIndex, boolean success, Object result, String error,
                     long durationMs) {
    this(taskId, attempt, shardIndex, success, result, error, durationMs, null);
  }

  public JsonObject toJson() {
    JsonObject json = new JsonObject()
        .put("task_id", taskId)
        .put("attempt", attempt)
        .put("shard_index", shardIndex)
        .put("status", success ? SUCCESS : FAILED)
        .put("result", result)
        .put("error", error)
        .put("duration_ms", durationMs);
    if (traceparent != null) {
      json.put("traceparent", traceparent);
    }
    return json;
  }

  /**
   * Reads one reported outcome. A failure without an error text gets one; an error is cut to
   * {@link #MAX_ERROR_CHARS}; an invalid traceparent is dropped. The result's size is the receiver's to check (it encodes it anyway).
   *
   * @throws ProtocolException if task_id, attempt (≥ 1) or status (SUCCESS | FAILED) is missing or wrong
   */
  public static TaskOutcome fromJson(JsonObject r) {
    String id = Fields.idOf(r.getValue("task_id"));
    if (id == null) {
      throw new ProtocolException("result: task_id is missing");
    }
    int attempt = Fields.intIn(r, "attempt", -1, 1, Integer.MAX_VALUE, "result");
    Object status = r.getValue("status");
    if (!SUCCESS.equals(status) && !FAILED.equals(status)) {
      throw new ProtocolException("result: status must be SUCCESS or FAILED");
    }
    boolean success = SUCCESS.equals(status);
    Object error = r.getValue("error");
    String errorText = success ? null
        : error == null ? "failed (no error given)" : Fields.truncate(String.valueOf(error), MAX_ERROR_CHARS);
    return new TaskOutcome(id, attempt, Fields.intOr(r, "shard_index", 0), success, r.getValue("result"), errorText,
        Fields.longOr(r, "duration_ms", 0), TraceParent.orNull(r.getValue("traceparent")));
  }
}
