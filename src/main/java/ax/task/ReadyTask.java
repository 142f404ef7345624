package ax.task;

/**
 * A processor task that is due in PostgreSQL and waits in the leader's memory for an executor with room.
 *
 * @param triggerTimeMs the time the caller asked for (what the executor is told)
 * @param dueMs         when this attempt became due: the trigger time, or a retry's backoff time
 * @param payloadJson   the stored JSON text or null
 * @param traceparent   the W3C traceparent its dispatch continues (the submission's, or the claim span's
 *                      when tracing is on), or null
 */
public record ReadyTask(
    long taskId,
    String taskType,
    String processor,
    int priority,
    long triggerTimeMs,
    long dueMs,
    int timeoutMs,
    String payloadJson,
    int retryCount,
    int maxRetry,
    int shardTotal,
    int shardIndex,
    String traceparent) {

  /** The same task continuing another trace context. */
  public ReadyTask withTraceparent(String parent) {
    return new ReadyTask(taskId, taskType, processor, priority, triggerTimeMs, dueMs, timeoutMs, payloadJson,
        retryCount, maxRetry, shardTotal, shardIndex, parent);
  }
}
