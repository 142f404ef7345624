package ax.dispatch;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What this node's HTTP calls owe the database, across all of the node's dispatchers: the tasks whose
 * call is in flight or whose outcome is not written yet, and how many outcomes wait to be written.
 *
 * <p>Outcomes are fenced by the attempt they belong to, not by the term that started the call, so a
 * node that lost the lease or the database keeps them and writes them when it can. Three things read
 * this: the recovery scan never re-fires a task this node still owes an outcome for (it would call the
 * target twice); the leader does not start a new term while outcomes of an earlier one are unwritten
 * (they are applied first); and the backlog is bounded — past {@code cap} unwritten outcomes each new
 * one is dropped and counted (the ones already held are older and closer to being written), and recovery
 * re-fires those tasks after their deadline.
 *
 * <p>Thread-safe: each dispatcher runs on its own event loop.
 */
public final class OutcomeBacklog {
  private final int cap;
  private final Set<Long> owed = ConcurrentHashMap.newKeySet();
  private final AtomicInteger unwritten = new AtomicInteger();

  public OutcomeBacklog(int cap) {
    if (cap < 1) {
      throw new IllegalArgumentException("cap must be ≥ 1, was " + cap);
    }
    this.cap = cap;
  }

  /** A call is about to be made: until its outcome is written, recovery leaves the task alone. */
  public void callStarted(long taskId) {
    owed.add(taskId);
  }

  /** The call returned; its outcome waits to be written. False when the backlog is full (drop it). */
  public boolean outcomeQueued() {
    if (unwritten.incrementAndGet() > cap) {
      unwritten.decrementAndGet();
      return false;
    }
    return true;
  }

  /** Outcomes written (applied or refused as stale) or dropped: nothing is owed for these tasks any more. */
  public void settled(Collection<Long> taskIds, int outcomes) {
    owed.removeAll(taskIds);
    unwritten.addAndGet(-outcomes);
  }

  /** True while this node owes an outcome for the task (its call is in flight or unwritten). */
  public boolean owes(long taskId) {
    return owed.contains(taskId);
  }

  /** Tasks whose call is in flight or whose outcome is not written yet: a graceful stop waits for 0. */
  public int owedCount() {
    return owed.size();
  }

  /** Outcomes waiting to be written. */
  public int unwritten() {
    return unwritten.get();
  }

  public int cap() {
    return cap;
  }
}
