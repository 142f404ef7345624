package ax.protocol;

import io.vertx.core.json.JsonObject;

/**
 * One task of a {@link Dispatch}: an attempt the executor must run once and report with the same
 * {@code (task_id, attempt, shard_index)}. {@code taskId} is a decimal string (ids exceed 2^53);
 * {@code triggerTime} is the time the caller asked for, epoch milliseconds; {@code pool} is the
 * scheduler's choice by {@link PoolRule}. {@code traceparent} and {@code tracestate} (W3C, optional, null
 * when absent) name the scheduler's dispatch span when tracing is on; an executor that knows nothing of
 * them ignores them.
 */
public record DispatchedTask(String taskId, int attempt, String processor, String taskType, Object payload,
                             int priority, String pool, long timeoutMs, long triggerTime, int shardIndex,
                             int shardTotal, String traceparent, String tracestate) {

  /** A task without trace context. */
  public DispatchedTask(String taskId, int attempt, String processor, String taskType, Object payload, int priority,
                        String pool, long timeoutMs, long triggerTime, int shardIndex, int shardTotal) {
    this(taskId, attempt, processor, taskType, payload, priority, pool, timeoutMs, triggerTime, shardIndex,
        shardTotal, null, null);
  }

  public JsonObject toJson() {
    JsonObject json = new JsonObject()
        .put("task_id", taskId)
        .put("attempt", attempt)
        .put("processor", processor)
        .put("task_type", taskType)
        .put("payload", payload)
        .put("priority", priority)
        .put("pool", pool)
        .put("timeout_ms", timeoutMs)
        .put("trigger_time", triggerTime)
        .put("shard_index", shardIndex)
        .put("shard_total", shardTotal);
    if (traceparent != null) { // absent, not null, without tracing: the message is what it always was
      json.put("traceparent", traceparent);
      if (tracestate != null) {
        json.put("tracestate", tracestate);
      }
    }
    return json;
  }

  /**
   * Reads one dispatched task. {@code task_id} (string, or a number read as its exact text) and
   * {@code processor} are required; the rest defaults (attempt 1, shard 0 of 1). An invalid
   * {@code traceparent} is dropped (with its {@code tracestate}), not refused.
   */
  public static DispatchedTask fromJson(JsonObject task) {
    String id = Fields.idOf(task.getValue("task_id"));
    if (id == null) {
      throw new ProtocolException("dispatch: a task without task_id");
    }
    if (!(task.getValue("processor") instanceof String processor)) {
      throw new ProtocolException("dispatch: task " + id + " without processor");
    }
    String traceparent = TraceParent.orNull(task.getValue("traceparent"));
    return new DispatchedTask(id, Fields.intOr(task, "attempt", 1), processor,
        task.getValue("task_type") instanceof String s ? s : null, task.getValue("payload"),
        Fields.intOr(task, "priority", 0), task.getValue("pool") instanceof String s ? s : null,
        Fields.longOr(task, "timeout_ms", 0), Fields.longOr(task, "trigger_time", 0),
        Fields.intOr(task, "shard_index", 0), Fields.intOr(task, "shard_total", 1), traceparent,
        traceparent == null ? null : TraceParent.stateOrNull(task.getValue("tracestate")));
  }

  /** The id of a task too malformed to read, if it has one, so it can still be rejected by id. */
  public static String idOf(Object task) {
    return task instanceof JsonObject json ? Fields.idOf(json.getValue("task_id")) : null;
  }
}
