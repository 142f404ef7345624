package ax.delivery;

/**
 * A processor task that is due and READY in PostgreSQL, waiting in the leader's memory for an executor
 * with room. {@code payloadJson} is the stored JSON text or null.
 */
public record ReadyTask(
    long taskId,
    String taskType,
    String processor,
    int priority,
    long triggerTimeMs,
    int timeoutMs,
    String payloadJson,
    int retryCount,
    int maxRetry,
    int shardTotal,
    int shardIndex) {
}
