package ax.bridge;

/**
 * At most one log line per interval for an event anyone on the network can cause (a refused token), so
 * an attacker cannot flood the node's log; the lines held back are counted into the next one. Given the
 * time; confined to one thread.
 */
public final class LogThrottle {
  private final long intervalMs;
  private long nextAtMs = Long.MIN_VALUE;
  private long heldBack;

  public LogThrottle(long intervalMs) {
    this.intervalMs = intervalMs;
  }

  /** -1 when this event is not to be logged; otherwise how many were held back since the last line. */
  public long admit(long nowMs) {
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
