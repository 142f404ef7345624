package ax.task;

import java.time.OffsetDateTime;

/** A task as stored, for reads through the API. {@code result} is raw JSON text or null. */
public record TaskRecord(
    long taskId,
    String tenantId,
    String taskType,
    OffsetDateTime triggerTime,
    TaskStatus status,
    int priority,
    int maxRetry,
    int retryCount,
    int attempt,
    int timeoutMs,
    String callbackUrl,
    String processor,
    Object payload,
    String bizKey,
    int shardTotal,
    String lastRunNode,
    Object result,
    String error,
    OffsetDateTime createdAt,
    OffsetDateTime updatedAt,
    OffsetDateTime startedAt,
    OffsetDateTime finishedAt) {
}
