package ax.dispatch;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The due work this node's dispatchers hold and have not finished: tasks waiting for a claim statement
 * or inside one ({@link ClaimQueue} reports its changes; a claim counts its tasks until its answer was
 * handled, by when the HTTP tasks it claimed are in the backlog), plus the HTTP calls claimed and not yet settled ({@link OutcomeBacklog#owedCount()}: held for their
 * trigger time, in flight, queued for a connection, or with their outcome unwritten). Work that can wait
 * — webhook delivery — steps aside while this is large (see {@link BurstYield}).
 *
 * <p>Thread-safe: each dispatcher adds its queue's changes from its own event loop.
 */
public final class DispatchLoad {
  private final AtomicInteger awaitingClaim = new AtomicInteger();
  private final OutcomeBacklog calls;

  public DispatchLoad(OutcomeBacklog calls) {
    this.calls = calls;
  }

  /** Tasks waiting for or inside a claim statement grew (positive) or shrank (negative) by {@code tasks}. */
  public void awaitingClaim(int tasks) {
    awaitingClaim.addAndGet(tasks);
  }

  public int dueTasksInHand() {
    return awaitingClaim.get() + calls.owedCount();
  }
}
