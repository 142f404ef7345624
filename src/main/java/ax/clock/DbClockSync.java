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
      // The database read its clock somewhere within the round trip: compare it with the wall clock at the
      // middle, so a slow round trip (the first, which opens a connection, took ~50 ms here) is not
      // mistaken for clock skew by the 50 ms alert.
      offsetMs.set(offset(sentWallMs, System.currentTimeMillis(), dbMillis));
      return null;
    });
  }

  /** Wall clock − database clock, the database's reading taken as the middle of the round trip. */
  static long offset(long sentWallMs, long arrivedWallMs, long dbMillis) {
    return sentWallMs + (arrivedWallMs - sentWallMs) / 2 - dbMillis;
  }
}
