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
    return store.nowMillis().map(dbMillis -> {
      long arrival = clock.monoNanos();
      clock.anchor(dbMillis, arrival);
      offsetMs.set(System.currentTimeMillis() - dbMillis);
      return null;
    });
  }
}
