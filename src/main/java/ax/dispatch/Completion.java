package ax.dispatch;

import ax.task.TaskStatus;

/**
 * The outcome of one attempt, to be written in a batch. The write only applies while the task is
 * still RUNNING with the same attempt, so a late result cannot overwrite a rescued task.
 *
 * @param status          SUCCESS, FAILED, or DELAYED (failure with a retry scheduled)
 * @param resultJson      JSON text for SUCCESS, else null
 * @param nextTriggerMs   the retry's trigger time when status is DELAYED, else -1
 * @param outcome         what the attempt log records: SUCCESS, FAILED or TIMED_OUT
 */
public record Completion(
    long taskId,
    int attempt,
    TaskStatus status,
    String resultJson,
    String error,
    int retryCount,
    long nextTriggerMs,
    String outcome) {
}
