package ax.task;

/**
 * The outcome of one attempt, to be written in a batch. The write applies only while the task is still
 * in flight in that same attempt, so a late result cannot overwrite a task that moved on.
 *
 * @param status        SUCCESS, FAILED, or DELAYED (a retry, or a re-fire after a lost attempt)
 * @param resultJson    JSON text for SUCCESS, else null
 * @param retryCount    retries used after this outcome
 * @param nextDueMs     when the next attempt is due when status is DELAYED, else -1
 * @param outcome       what the attempt log records
 */
public record Completion(
    long taskId,
    int attempt,
    TaskStatus status,
    String resultJson,
    String error,
    int retryCount,
    long nextDueMs,
    AttemptOutcome outcome) {

  /** How an attempt ended, as recorded in {@code task_attempts.outcome}. */
  public enum AttemptOutcome {
    SUCCESS,
    FAILED,
    TIMED_OUT,
    /**
     * The node that made the call died (or never reported) with it in flight: the attempt's fate is
     * unknown, so the task is fired again, without using a retry of {@code max_retry}.
     */
    LOST
  }
}
