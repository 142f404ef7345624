package ax.task;

import static ax.task.TaskStatus.CANCELLED;
import static ax.task.TaskStatus.CREATED;
import static ax.task.TaskStatus.DELAYED;
import static ax.task.TaskStatus.DISPATCHING;
import static ax.task.TaskStatus.FAILED;
import static ax.task.TaskStatus.READY;
import static ax.task.TaskStatus.RUNNING;
import static ax.task.TaskStatus.SKIPPED;
import static ax.task.TaskStatus.SUCCESS;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The one place that says which task status changes are legal (R1, R4). Every status write in the
 * stores is a guarded update ({@code WHERE status = ANY(sources(to))}) built from this table, so the
 * database refuses the same moves this class does, and a late or duplicate message cannot drag a task
 * back. Also home of the retry decision after a failure, so "what happens next" lives beside "what
 * may happen".
 *
 * <pre>{@code
 *                          +---------+
 *                          | CREATED |
 *                          +---------+
 *              trigger later  |     |  trigger now or past
 *                     +-------+     +--------+
 *                     v                      v
 *               +---------+    due      +-------+
 *      +------->| DELAYED |------------>| READY |<--------------------+
 *      |        +---------+             +-------+                     |
 *      |             | claimed overdue      | claimed                 | ack timeout /
 *      |             | (recovery scan)      v                         | executor rejected
 *      |             |              +-------------+                   |
 *      |             +------------->| DISPATCHING |-------------------+
 *      |   executor lost,           +-------------+
 *      +--- retry scheduled --------|      |      |--- executor lost, retries exhausted ---> FAILED
 *      |                                   | executor ack
 *      |                                   v
 *      |                            +-------------+
 *      +--- failed, retries left ---|   RUNNING   |--- succeeded ---> SUCCESS
 *           (backoff)               +-------------+
 *                                          |--- failed, retries exhausted or max_retry 0 ---> FAILED
 *
 *   CREATED, DELAYED, READY --- cancelled by the caller ----------> CANCELLED
 *   CREATED, DELAYED, READY --- a dependency did not succeed -----> SKIPPED
 *   SUCCESS, FAILED, CANCELLED, SKIPPED are terminal: nothing leaves them.
 * }</pre>
 */
public final class TaskStateMachine {

  /**
   * What a failed attempt leads to.
   *
   * @param status            {@code DELAYED} when a retry is scheduled, {@code FAILED} when not
   * @param retryCount        retries used, counting the one just scheduled
   * @param nextTriggerTimeMs when the retry is due, or -1 when there is none
   */
  public record FailureOutcome(TaskStatus status, int retryCount, long nextTriggerTimeMs) {
  }

  private static final Map<TaskStatus, Set<TaskStatus>> TARGETS = new EnumMap<>(TaskStatus.class);
  private static final Map<TaskStatus, Set<TaskStatus>> SOURCES = new EnumMap<>(TaskStatus.class);

  static {
    allow(CREATED, DELAYED, READY, CANCELLED, SKIPPED);
    // DELAYED → RUNNING/SUCCESS/FAILED: a sharded parent settles from its shards; → FAILED also when the
    // sync endpoint's deadline passes before the task ran (likewise READY → FAILED).
    allow(DELAYED, READY, DISPATCHING, CANCELLED, SKIPPED, RUNNING, SUCCESS, FAILED);
    allow(READY, DISPATCHING, CANCELLED, SKIPPED, FAILED);
    // DISPATCHING → SUCCESS: an executor's result can arrive before its ack was written.
    allow(DISPATCHING, RUNNING, READY, DELAYED, FAILED, SUCCESS);
    allow(RUNNING, SUCCESS, FAILED, DELAYED);
    for (TaskStatus to : TaskStatus.values()) {
      Set<TaskStatus> sources = EnumSet.noneOf(TaskStatus.class);
      for (TaskStatus from : TaskStatus.values()) {
        if (canTransition(from, to)) {
          sources.add(from);
        }
      }
      SOURCES.put(to, Collections.unmodifiableSet(sources));
    }
  }

  private TaskStateMachine() {
  }

  private static void allow(TaskStatus from, TaskStatus first, TaskStatus... rest) {
    TARGETS.put(from, Collections.unmodifiableSet(EnumSet.of(first, rest)));
  }

  /** Whether a task in {@code from} may move to {@code to}. */
  public static boolean canTransition(TaskStatus from, TaskStatus to) {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    return TARGETS.getOrDefault(from, Set.of()).contains(to);
  }

  /** Throws {@link IllegalTransitionException} unless {@code from → to} is legal. */
  public static void requireTransition(TaskStatus from, TaskStatus to) {
    if (!canTransition(from, to)) {
      throw new IllegalTransitionException(from, to);
    }
  }

  /**
   * The status a newly admitted task starts in: {@code DELAYED} while its trigger time is ahead,
   * {@code READY} when it is due (at or before now).
   */
  public static TaskStatus admitted(long triggerTimeMs, long nowMs) {
    return triggerTimeMs > nowMs ? DELAYED : READY;
  }

  /**
   * Every status that may move to {@code to} — the {@code status = ANY(...)} guard of the update
   * that performs the move. Empty for {@code CREATED}, which nothing enters by a transition.
   */
  public static Set<TaskStatus> sources(TaskStatus to) {
    return SOURCES.get(Objects.requireNonNull(to, "to"));
  }

  /**
   * Decides what a failed attempt leads to: another try after the backoff while retries remain,
   * otherwise {@code FAILED} for good. Retries are bounded by {@code maxRetry}, never infinite (R4).
   *
   * @param retryCount retries already used (0 after the first attempt fails)
   * @param maxRetry   retries allowed in total
   */
  public static FailureOutcome afterFailure(int retryCount, int maxRetry, RetryBackoff backoff, long nowMs) {
    Objects.requireNonNull(backoff, "backoff");
    if (retryCount < 0 || maxRetry < 0) {
      throw new IllegalArgumentException(
          "retryCount and maxRetry must not be negative, were " + retryCount + " and " + maxRetry);
    }
    if (retryCount < maxRetry) {
      int next = retryCount + 1;
      return new FailureOutcome(DELAYED, next, nowMs + backoff.delayMs(next));
    }
    return new FailureOutcome(FAILED, retryCount, -1);
  }
}
