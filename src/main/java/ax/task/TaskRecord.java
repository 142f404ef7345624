package ax.task;

import java.time.OffsetDateTime;
import java.util.List;

/**
 * A task as stored, for reads through the API. {@code payload} and {@code result} are JSON text or null;
 * {@code scheduleId} and {@code scheduledTime} are set on the occurrences of a recurring schedule;
 * {@code dependsOn} lists the parents (ascending), empty for a task without dependencies; {@code dedupe}
 * says whether it took part in the fingerprint rule (it has a fingerprint).
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
    OffsetDateTime scheduledTime,
    List<Long> dependsOn,
    String notifyUrl,
    boolean dedupe) {

  /** The same task with its parents known. */
  public TaskRecord withDependsOn(List<Long> parents) {
    return new TaskRecord(taskId, tenantId, taskType, triggerTime, status, priority, maxRetry, retryCount, attempt,
        timeoutMs, callbackUrl, processor, payload, bizKey, shardTotal, lastRunNode, result, error, createdAt,
        updatedAt, startedAt, finishedAt, scheduleId, scheduledTime, parents, notifyUrl, dedupe);
  }
}
