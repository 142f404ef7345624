package ax.dispatch;

import ax.task.RetryBackoff;
import ax.task.TaskStateMachine;
import ax.task.TaskStateMachine.FailureOutcome;
import ax.task.TaskStatus;

/**
 * Turns what happened to one attempt into the {@link Completion} to write: SUCCESS, or a failure that
 * the state machine maps to a retry (DELAYED with backoff) or to FAILED when retries are exhausted.
 * Shared by dispatch (results) and recovery (timeouts), so both apply the same retry rules.
 */
public final class OutcomePolicy {
  private final RetryBackoff backoff;

  public OutcomePolicy(RetryBackoff backoff) {
    this.backoff = backoff;
  }

  public Completion succeeded(long taskId, int attempt, int retryCount, String resultJson) {
    TaskStateMachine.requireTransition(TaskStatus.RUNNING, TaskStatus.SUCCESS);
    return new Completion(taskId, attempt, TaskStatus.SUCCESS, resultJson, null, retryCount, -1, "SUCCESS");
  }

  public Completion failed(long taskId, int attempt, int retryCount, int maxRetry, String error,
                           boolean timedOut, long nowMs) {
    FailureOutcome next = TaskStateMachine.afterFailure(retryCount, maxRetry, backoff, nowMs);
    TaskStateMachine.requireTransition(TaskStatus.RUNNING, next.status());
    return new Completion(taskId, attempt, next.status(), null, error, next.retryCount(),
        next.nextTriggerTimeMs(), timedOut ? "TIMED_OUT" : "FAILED");
  }
}
