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

  /** The attempt failed (or timed out). */
  public boolean failed() {
    return outcome == AttemptOutcome.FAILED || outcome == AttemptOutcome.TIMED_OUT;
  }

  /**
   * The attempt failed and the task was already on a retry, so the attempt before it that counted failed
   * too ("a task failing twice in a row", R9). A lost attempt in between counts as neither.
   */
  public boolean failedAgain() {
    if (!failed()) {
      return false;
    }
    int retriesBefore = status == TaskStatus.DELAYED ? retryCount - 1 : retryCount;
    return retriesBefore >= 1;
  }

  /** SUCCESS or FAILED: the task is done, having used {@link #retryCount} retries. */
  public boolean terminal() {
    return status == TaskStatus.SUCCESS || status == TaskStatus.FAILED;
  }

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
