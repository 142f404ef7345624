package ax.clock;

import ax.store.DbTimeStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps a {@link DbClock} anchored: reads the database clock at start and then every interval, and
 * records the node's offset (wall clock − database clock) for the {@code ax_clock_offset_seconds} gauge
 * (alert above 50 ms). The wall clock is read only for that gauge.
 */
public final class DbClockSync {
  private static final Logger LOG = Logger.getLogger(DbClockSync.class.getName());

  private final Vertx vertx;
  private final DbTimeStore store;
  private final DbClock clock;
  private final AtomicLong offsetMs = new AtomicLong();
  private long timerId = -1;

  public DbClockSync(Vertx vertx, DbTimeStore store, DbClock clock) {
    this.vertx = vertx;
    this.store = store;
    this.clock = clock;
  }

  public Future<Void> start(long intervalMs) {
    return syncOnce().onSuccess(v -> timerId = vertx.setPeriodic(intervalMs, id -> syncOnce()
        .onFailure(e -> LOG.log(Level.WARNING, "database clock sync failed; keeping the last anchor", e))));
  }

  public void stop() {
    if (timerId >= 0) {
      vertx.cancelTimer(timerId);
    }
  }

  public long offsetMillis() {
    return offsetMs.get();
  }

  private Future<Void> syncOnce() {
    long sentWallMs = System.currentTimeMillis();
    return store.nowMillis().map(dbMillis -> {
      long arrival = clock.monoNanos();
      clock.anchor(dbMillis, arrival);
      // The database read its clock somewhere within the round trip: a slow round trip (the first, which
      // opens a connection, took ~50 ms here; hundreds of ms on a loaded machine) must not be mistaken for
      // clock skew by the 50 ms alert (see offset()).
      offsetMs.set(offset(sentWallMs, System.currentTimeMillis(), dbMillis));
      return null;
    });
  }

  /**
   * Wall clock − database clock, the smallest the measurement allows. The database read its clock at some
   * moment of the round trip, so the offset is known only within ± half of it: reported is the offset from
   * the middle of the round trip, moved toward 0 by that half (0 when the interval holds 0). A loaded node
   * or database (round trips of hundreds of ms, seen in CI) then never shows skew it may not have, while a
   * clock really 30 s off still shows about 30 s.
   */
  static long offset(long sentWallMs, long arrivedWallMs, long dbMillis) {
    long halfTrip = Math.max(0, arrivedWallMs - sentWallMs) / 2;
    long mid = sentWallMs + halfTrip - dbMillis;
    return Long.signum(mid) * Math.max(0, Math.abs(mid) - halfTrip);
  }
}
