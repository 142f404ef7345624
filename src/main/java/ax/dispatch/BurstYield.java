package ax.dispatch;

/**
 * Whether work that can wait (webhook delivery) steps aside for a burst being fired: it waits while the
 * node's dispatchers hold at least {@code busyAt} due tasks ({@link DispatchLoad}), for at most
 * {@code maxWaitMs} per busy spell. Past that it goes on although the load stays, so a sustained load
 * delays it once, by a bounded time, and never starves it; a spell ends when the load drops below
 * {@code busyAt}.
 *
 * <p>Why: on two cores a burst of 20 000 HTTP tasks drained ~15 % slower with {@code notify_url} on every
 * task, the webhooks' claims, POSTs and outcome writes sharing the CPU and the database with the
 * burst's own; yielding, the first webhook arrives after the burst's last call and the overhead was
 * ~5 % (bench/README.md, History, 2026-12-03). The bound must outlast a burst's drain: at 5 s the
 * webhooks started 5.4-5.8 s after the due instant, inside the tail of a 6-7 s drain.
 *
 * <p>Pure and not thread-safe: its one caller passes the load and the time.
 */
public final class BurstYield {
  private final int busyAt;
  private final long maxWaitMs;
  private long busySince = -1; // -1: not in a busy spell

  /** @param maxWaitMs 0 never waits */
  public BurstYield(int busyAt, long maxWaitMs) {
    if (busyAt < 1 || maxWaitMs < 0) {
      throw new IllegalArgumentException("busyAt must be ≥ 1 and maxWaitMs ≥ 0");
    }
    this.busyAt = busyAt;
    this.maxWaitMs = maxWaitMs;
  }

  /** True: wait and ask again later. */
  public boolean shouldWait(int dueTasksInHand, long nowMs) {
    if (maxWaitMs == 0 || dueTasksInHand < busyAt) {
      busySince = -1;
      return false;
    }
    if (busySince < 0) {
      busySince = nowMs;
    }
    return nowMs - busySince < maxWaitMs;
  }
}
