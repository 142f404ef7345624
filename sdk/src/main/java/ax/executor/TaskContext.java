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
 */
public record TaskContext(String executorId, String taskId, int attempt, String processor, String taskType,
                          Object payload, int priority, String pool, long timeoutMs, long triggerTime,
                          int shardIndex, int shardTotal) {

  /** The payload if it is a JSON object, else an empty object (never null, handy for optional fields). */
  public JsonObject payloadObject() {
    return payload instanceof JsonObject json ? json : new JsonObject();
  }

  DedupeKey dedupeKey() {
    return new DedupeKey(taskId, attempt, shardIndex);
  }

  static TaskContext of(DispatchedTask t, String executorId) {
    return new TaskContext(executorId, t.taskId(), t.attempt(), t.processor(), t.taskType(), t.payload(), t.priority(),
        t.pool(), t.timeoutMs(), t.triggerTime(), t.shardIndex(), t.shardTotal());
  }
}
