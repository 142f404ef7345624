package ax.task;

/**
 * An HTTP-target task this node has just claimed (RUNNING, {@code attempt} already incremented) and must
 * now call.
 *
 * @param triggerTimeMs the time the caller asked for (what the receiver is told)
 * @param dueMs         when this attempt became due: the trigger time, or a retry's backoff time
 * @param payloadJson   the stored JSON text or null
 * @param traceparent   the submission's W3C traceparent (V15), or null
 */
public record HttpTask(
    long taskId,
    int attempt,
    String apiKey,
    String taskType,
    long triggerTimeMs,
    long dueMs,
    int priority,
    String payloadJson,
    String callbackUrl,
    int timeoutMs,
    int retryCount,
    int maxRetry,
    String traceparent) {
}
