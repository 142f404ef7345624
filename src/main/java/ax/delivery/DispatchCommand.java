package ax.delivery;

import ax.task.Attempt;
import ax.task.Completion;
import ax.task.ReadyTask;
import ax.task.Settled;
import ax.wheel.ScheduledTask;

import java.util.List;
import java.util.Set;

/**
 * What {@link ExecutorDispatch} asks its runner to do. Each command that starts I/O carries an id; the
 * runner reports how it ended with the matching event ({@code dispatchWritten(id, …)} and so on). Ids
 * belong to one leader term: after a term change the dispatch ignores answers for ids it no longer knows.
 */
public sealed interface DispatchCommand {

  /** Answer the executor request {@code requestId}. */
  record Answer(long requestId, Reply reply) implements DispatchCommand {
  }

  /** Write these tasks DISPATCHING to the executor (fenced); report {@code dispatchWritten} / {@code dispatchWriteFailed}. */
  record WriteDispatch(long dispatchId, String executorId, long[] taskIds) implements DispatchCommand {
  }

  /**
   * Push the written tasks to the executor's inbox, not before {@code notBeforeMs} on the database clock
   * (their trigger time: they may have been written ahead of it), waiting at most the ack timeout for the
   * answer; report {@code pushAnswered} / {@code pushUnanswered}.
   */
  record Push(long dispatchId, String executorId, long epoch, List<ReadyTask> tasks, List<Integer> attempts,
              long notBeforeMs) implements DispatchCommand {
  }

  /** Write these acked attempts RUNNING (fenced); no answer needed: RUNNING is informative. */
  record WriteAcks(String executorId, List<Attempt> attempts) implements DispatchCommand {
  }

  /** Call {@code ackFlushDue} after {@code delayMs}. */
  record ArmAckFlush(long delayMs) implements DispatchCommand {
  }

  /** Put refused attempts back to READY (fenced); report {@code released} / {@code releaseFailed}. */
  record Release(long releaseId, String executorId, List<Attempt> attempts) implements DispatchCommand {
  }

  /** Read the retry budgets of tasks this term did not dispatch; report {@code attemptsLookedUp} / {@code …Failed}. */
  record LookUpAttempts(long requestId, String executorId, long[] taskIds) implements DispatchCommand {
  }

  /** Write outcomes (fenced by term, executor and attempt); report {@code completed} / {@code completeFailed}. */
  record Complete(long completionId, String executorId, List<Completion> batch) implements DispatchCommand {
  }

  /** Bring these sharded parents up to date with their shards; report {@code parentsSettled}. */
  record SettleParents(List<Long> parentIds) implements DispatchCommand {
  }

  /** Find sharded parents a missed settle left behind and settle them (periodic). */
  record SweepStaleParents() implements DispatchCommand {
  }

  /** Hand these to the timing wheel (retries, sync tasks). */
  record ToWheel(List<ScheduledTask> tasks) implements DispatchCommand {
  }

  /** Read READY / due tasks of these processors from PostgreSQL; report {@code toppedUp} / {@code topUpFailed}. */
  record LoadReady(int limit, Set<String> processors) implements DispatchCommand {
  }

  /** After {@code delayMs}, read what the OFFLINE executor holds; report {@code heldLoaded} / {@code heldLoadFailed}. */
  record LoadHeld(String executorId, int limit, long delayMs) implements DispatchCommand {
  }

  /** Answer sync-endpoint waiters with the task's outcome. */
  record AnswerSync(List<Long> waiterIds, Settled outcome) implements DispatchCommand {
  }

  /** Fail sync-endpoint waiters ({@code 504} no outcome in time, {@code 503} the term ended). */
  record FailSync(List<Long> waiterIds, int code, String message) implements DispatchCommand {
  }
}
