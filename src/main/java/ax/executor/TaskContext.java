package ax.executor;

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

  public DedupeKey dedupeKey() {
    return new DedupeKey(taskId, attempt, shardIndex);
  }

  /**
   * Reads one element of a dispatch's {@code tasks}. Numbers are accepted for {@code task_id} (some
   * clients write small ids as numbers) but read as their exact decimal text.
   *
   * @throws IllegalArgumentException if {@code task_id} or {@code processor} is missing
   */
  static TaskContext fromDispatch(JsonObject task, String executorId) {
    Object rawId = task.getValue("task_id");
    if (rawId == null || (!(rawId instanceof String) && !(rawId instanceof Number))) {
      throw new IllegalArgumentException("task without task_id");
    }
    String processor = task.getString("processor");
    if (processor == null) {
      throw new IllegalArgumentException("task " + rawId + " without processor");
    }
    return new TaskContext(executorId, rawId.toString(), intOf(task, "attempt", 1), processor,
        task.getString("task_type"), task.getValue("payload"), intOf(task, "priority", 0), task.getString("pool"),
        longOf(task, "timeout_ms", 0), longOf(task, "trigger_time", 0), intOf(task, "shard_index", 0),
        intOf(task, "shard_total", 1));
  }

  /** The task id of a malformed task, if it has one, so it can still be rejected by id. */
  static String idOf(Object task) {
    if (task instanceof JsonObject json) {
      Object id = json.getValue("task_id");
      return id instanceof String || id instanceof Number ? id.toString() : null;
    }
    return null;
  }

  private static int intOf(JsonObject o, String key, int dflt) {
    Object v = o.getValue(key);
    return v instanceof Number n ? n.intValue() : dflt;
  }

  private static long longOf(JsonObject o, String key, long dflt) {
    Object v = o.getValue(key);
    return v instanceof Number n ? n.longValue() : dflt;
  }
}
