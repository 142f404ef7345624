package ax.executor;

import ax.protocol.DispatchedTask;
import io.vertx.core.json.JsonObject;

/**
 * What a handler knows about the execution it runs, read from one task of a dispatch.
 *
 * @param taskId     decimal string: ids exceed 2^53 and must not go through a double
 * @param payload    the task's payload as sent (usually a {@code JsonObject}; may be any JSON value or null)
 * @param timeoutMs  how long the scheduler waits for the result before it gives up on this attempt
 * @param triggerTime when the task was due, epoch milliseconds
 * @param traceparent the W3C traceparent of the scheduler's dispatch span when tracing is on, else null:
 *                    pass it on (as the {@code traceparent} header of calls the handler makes, or as the
 *                    parent of a span of your own) to continue the task's trace; the SDK sends it back
 *                    with the result
 * @param tracestate  the W3C tracestate that came with it, or null
 */
public record TaskContext(String executorId, String taskId, int attempt, String processor, String taskType,
                          Object payload, int priority, String pool, long timeoutMs, long triggerTime,
                          int shardIndex, int shardTotal, String traceparent, String tracestate) {

  /** A context without trace context (tests, handlers called directly). */
  public TaskContext(String executorId, String taskId, int attempt, String processor, String taskType,
                     Object payload, int priority, String pool, long timeoutMs, long triggerTime,
                     int shardIndex, int shardTotal) {
    this(executorId, taskId, attempt, processor, taskType, payload, priority, pool, timeoutMs, triggerTime,
        shardIndex, shardTotal, null, null);
  }

  /** The payload if it is a JSON object, else an empty object (never null, handy for optional fields). */
  public JsonObject payloadObject() {
    return payload instanceof JsonObject json ? json : new JsonObject();
  }

  DedupeKey dedupeKey() {
    return new DedupeKey(taskId, attempt, shardIndex);
  }

  static TaskContext of(DispatchedTask t, String executorId) {
    return new TaskContext(executorId, t.taskId(), t.attempt(), t.processor(), t.taskType(), t.payload(), t.priority(),
        t.pool(), t.timeoutMs(), t.triggerTime(), t.shardIndex(), t.shardTotal(), t.traceparent(), t.tracestate());
  }
}
