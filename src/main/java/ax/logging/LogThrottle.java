package ax.logging;

/**
 * At most one log line per interval for an event anyone on the network can cause (a refused token), or
 * that every request repeats while a dependency is down (the database), so the node's log is not flooded
 * when it matters most; the lines held back are counted into the next one. Given the time. Safe to share
 * between event loops: it is only called on failure paths, so the lock is uncontended in normal running.
 */
public final class LogThrottle {
  private final long intervalMs;
  private long nextAtMs = Long.MIN_VALUE;
  private long heldBack;

  public LogThrottle(long intervalMs) {
    this.intervalMs = intervalMs;
  }

  /** -1 when this event is not to be logged; otherwise how many were held back since the last line. */
  public synchronized long admit(long nowMs) {
    if (nowMs < nextAtMs) {
      heldBack++;
      return -1;
    }
    nextAtMs = nowMs + intervalMs;
    long held = heldBack;
    heldBack = 0;
    return held;
  }
}
