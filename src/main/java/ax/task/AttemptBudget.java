package ax.task;

/**
 * A task's current attempt and retry budget: what the retry policy needs to settle an attempt that did
 * not report (an OFFLINE executor's tasks, an overdue one) or whose result reached a leader that did not
 * dispatch it.
 *
 * @param refires attempts already re-fired after being lost (see {@link OutcomePolicy#lost})
 */
public record AttemptBudget(long taskId, int attempt, int retryCount, int maxRetry, int refires) {
}
