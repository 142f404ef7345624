package ax.logging;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A warning that repeats for as long as a dependency is down — every request, claim batch or write
 * failing the same way while PostgreSQL is gone: at most one line per interval, with its cause, and the
 * lines held back counted into the next. Logged every time, a 4 s database stop under load wrote
 * 100 000 log lines (5 000 stack traces from the API alone, DatabaseStopIT), burying the one line an
 * operator needs. Safe to share between event loops.
 */
public final class ThrottledWarning {
  /**
   * One line per 10 s: an operator tailing the log still sees every few seconds that the failure goes on,
   * and a minute's outage writes six lines per kind of failure instead of thousands.
   */
  public static final long DEFAULT_INTERVAL_MS = 10_000;

  private final Logger log;
  private final LogThrottle throttle;

  public ThrottledWarning(Logger log) {
    this(log, DEFAULT_INTERVAL_MS);
  }

  public ThrottledWarning(Logger log, long intervalMs) {
    this.log = log;
    this.throttle = new LogThrottle(intervalMs);
  }

  public void log(String message, Throwable cause) {
    long heldBack = throttle.admit(System.nanoTime() / 1_000_000);
    if (heldBack >= 0) {
      log.log(Level.WARNING, heldBack == 0 ? message : message + " (" + heldBack
          + " more such failures since the previous line)", cause);
    }
  }
}
