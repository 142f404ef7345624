package ax.task;


/**
 * A validated submission, ready to insert. {@code payloadJson} is the serialised JSON (or null);
 * {@code triggerTimeMs} is absolute, in database-clock milliseconds; {@code notifyUrl} (or null) is
 * called when the task reaches a terminal status; {@code fingerprint} (or null: not deduplicated) is the
 * {@link Fingerprint} no other task with a trigger time less than 5 s away may share.
 */
public record NewTask(
    long taskId,
    String tenantId,
    String apiKey,
    String taskType,
    long triggerTimeMs,
    TaskStatus status,
    int priority,
    int maxRetry,
    int timeoutMs,
    String callbackUrl,
    String processor,
    String payloadJson,
    String bizKey,
    int shardTotal,
    String notifyUrl,
    java.util.UUID fingerprint) {

  /** A task that is not sharded. */
  public NewTask(long taskId, String tenantId, String apiKey, String taskType, long triggerTimeMs, TaskStatus status,
                 int priority, int maxRetry, int timeoutMs, String callbackUrl, String processor, String payloadJson,
                 String bizKey) {
    this(taskId, tenantId, apiKey, taskType, triggerTimeMs, status, priority, maxRetry, timeoutMs, callbackUrl,
        processor, payloadJson, bizKey, 1, null, null);
  }

  /** A task without a webhook. */
  public NewTask(long taskId, String tenantId, String apiKey, String taskType, long triggerTimeMs, TaskStatus status,
                 int priority, int maxRetry, int timeoutMs, String callbackUrl, String processor, String payloadJson,
                 String bizKey, int shardTotal) {
    this(taskId, tenantId, apiKey, taskType, triggerTimeMs, status, priority, maxRetry, timeoutMs, callbackUrl,
        processor, payloadJson, bizKey, shardTotal, null, null);
  }

  public static final int DEFAULT_PRIORITY = 5;
  public static final int DEFAULT_MAX_RETRY = 2;
  public static final int DEFAULT_TIMEOUT_MS = 60_000;

  /**
   * The row this task became when inserted at {@code createdAt}: what it was given, the table's
   * defaults (no attempt, retry or result yet, updated when created) and no parents. The batch insert
   * answers with it instead of reading back and decoding every column of 1000 rows.
   */
  public TaskRecord asInserted(java.time.OffsetDateTime createdAt) {
    return new TaskRecord(taskId, tenantId, taskType,
        java.time.Instant.ofEpochMilli(triggerTimeMs).atOffset(java.time.ZoneOffset.UTC), status, priority, maxRetry,
        0, 0, timeoutMs, callbackUrl, processor, payloadJson, bizKey, shardTotal, null, null, null, createdAt,
        createdAt, null, status == TaskStatus.SKIPPED ? createdAt : null, null, null, java.util.List.of(), notifyUrl,
        fingerprint != null);
  }

  public NewTask withIdAndStatus(long id, TaskStatus newStatus) {
    return new NewTask(id, tenantId, apiKey, taskType, triggerTimeMs, newStatus, priority, maxRetry,
        timeoutMs, callbackUrl, processor, payloadJson, bizKey, shardTotal, notifyUrl, fingerprint);
  }
}
