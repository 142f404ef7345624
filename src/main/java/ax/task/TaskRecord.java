package ax.task;

import java.time.OffsetDateTime;

/**
 * A task as stored, for reads through the API. {@code payload} and {@code result} are JSON text or null;
 * {@code scheduleId} and {@code scheduledTime} are set on the occurrences of a recurring schedule.
 */
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
    String payload,
    String bizKey,
    int shardTotal,
    String lastRunNode,
    String result,
    String error,
    OffsetDateTime createdAt,
    OffsetDateTime updatedAt,
    OffsetDateTime startedAt,
    OffsetDateTime finishedAt,
    Long scheduleId,
    OffsetDateTime scheduledTime) {
}
