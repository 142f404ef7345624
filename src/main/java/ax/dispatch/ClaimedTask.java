package ax.dispatch;

/**
 * A task this node has just claimed (status RUNNING, {@code attempt} already incremented) and must
 * now execute. {@code payloadJson} is the stored JSON text or null.
 */
public record ClaimedTask(
    long taskId,
    int attempt,
    String apiKey,
    String taskType,
    long triggerTimeMs,
    int priority,
    String payloadJson,
    String callbackUrl,
    int timeoutMs,
    int retryCount,
    int maxRetry) {
}
