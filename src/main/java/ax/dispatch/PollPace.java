package ax.dispatch;

/**
 * How long a poller waits before its next look: {@code busyMs} after a look that found work, and after
 * one that found none twice the previous wait, up to {@code idleCapMs}. So work that keeps coming is
 * picked up every {@code busyMs}, and an idle leader does not pay for a database round trip every
 * {@code busyMs} for nothing.
 *
 * <p>Why: the webhook outbox was polled every 50 ms (20 claim statements a second) so that deliveries
 * during a spread come in small rounds; idle, paced this way a node uses a third less CPU (16.6 → 10.8 ms
 * a second; bench/README.md, History, 2026-12-05 seventh session). The first notification after a quiet
 * spell waits at most {@code idleCapMs}.
 *
 * <p>Pure and not thread-safe: its one caller reports each look.
 */
public final class PollPace {
  private final long busyMs;
  private final long idleCapMs;
  private long waitMs;

  public PollPace(long busyMs, long idleCapMs) {
    if (busyMs < 1 || idleCapMs < busyMs) {
      throw new IllegalArgumentException("need 1 ≤ busyMs ≤ idleCapMs, got " + busyMs + ", " + idleCapMs);
    }
    this.busyMs = busyMs;
    this.idleCapMs = idleCapMs;
    this.waitMs = busyMs;
  }

  /** The wait before the next look, after a look that found {@code found} items. */
  public long afterLook(int found) {
    waitMs = found > 0 ? busyMs : Math.min(idleCapMs, waitMs * 2);
    return waitMs;
  }

  /** After a look that was skipped: the next one comes at the busy pace, the idle wait unchanged. */
  public long afterSkip() {
    return busyMs;
  }
}
