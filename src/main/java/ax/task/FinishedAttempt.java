package ax.task;

import java.time.OffsetDateTime;

/**
 * One row of a task's attempt log: who ran the attempt, when, and how it ended. {@code executorId} is
 * null for HTTP targets, {@code startedAt} when the attempt never started.
 */
public record FinishedAttempt(int attempt, String nodeId, String executorId, OffsetDateTime startedAt,
                              OffsetDateTime finishedAt, String outcome, String error) {
}
