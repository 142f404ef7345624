package ax.task;

import ax.task.Completion.AttemptOutcome;
import ax.task.TaskStateMachine.FailureOutcome;

/**
 * Turns what happened to one attempt into the {@link Completion} to write: SUCCESS, a failure that the
 * state machine maps to a retry (DELAYED with backoff) or to FAILED when retries are exhausted, or a
 * lost attempt that is fired again. Shared by the HTTP path, the executor path and recovery, so all
 * apply the same rules.
 */
public final class OutcomePolicy {
  /**
   * Lost attempts fired again without using a retry. A task whose calls keep getting lost (one that
   * crashes the node that runs it, say) then uses retries like any failure, so it cannot loop forever.
   */
  public static final int MAX_FREE_REFIRES = 3;

  private final RetryBackoff backoff;

  public OutcomePolicy(RetryBackoff backoff) {
    this.backoff = backoff;
  }

  public Completion succeeded(long taskId, int attempt, int retryCount, String resultJson) {
    TaskStateMachine.requireTransition(TaskStatus.RUNNING, TaskStatus.SUCCESS);
    return new Completion(taskId, attempt, TaskStatus.SUCCESS, resultJson, null, retryCount, -1,
        AttemptOutcome.SUCCESS);
  }

  public Completion failed(long taskId, int attempt, int retryCount, int maxRetry, String error,
                           boolean timedOut, long nowMs) {
    FailureOutcome next = TaskStateMachine.afterFailure(retryCount, maxRetry, backoff, nowMs);
    TaskStateMachine.requireTransition(TaskStatus.RUNNING, next.status());
    return new Completion(taskId, attempt, next.status(), null, error, next.retryCount(),
        next.nextTriggerTimeMs(), timedOut ? AttemptOutcome.TIMED_OUT : AttemptOutcome.FAILED);
  }

  /**
   * The attempt's caller is gone without a word (its node died with the call in flight, or never
   * reported): fire the task again now, as a new attempt that does not count against {@code max_retry}
   * — unless it already was re-fired {@link #MAX_FREE_REFIRES} times, then it is a failure like any other.
   */
  public Completion lost(AttemptBudget a, String cause, long nowMs) {
    if (a.refires() >= MAX_FREE_REFIRES) {
      return failed(a.taskId(), a.attempt(), a.retryCount(), a.maxRetry(),
          cause + " (lost " + (a.refires() + 1) + " times; counted as a failure)", true, nowMs);
    }
    TaskStateMachine.requireTransition(TaskStatus.RUNNING, TaskStatus.DELAYED);
    return new Completion(a.taskId(), a.attempt(), TaskStatus.DELAYED, null, cause, a.retryCount(), nowMs,
        AttemptOutcome.LOST);
  }
}
