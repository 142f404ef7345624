package ax.clock;

import ax.logging.ThrottledWarning;
import ax.store.DbTimeStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps a {@link DbClock} anchored: reads the database clock at start and then every interval, and
 * records the node's offset (wall clock − database clock) for the {@code ax_clock_offset_seconds} gauge
 * (alert above 50 ms). The wall clock is read only for that gauge.
 *
 * <p>Each sync reads the database clock several times in a row and anchors with the reading of the
 * shortest round trip: the estimate lags the database by up to the round trip of its anchor, and the
 * first reading of a freshly started JVM (cold connection, cold code) took 100+ ms, so a restarted node
 * that became leader fired everything ~120 ms late until its next sync (RollingRestartIT).
 */
public final class DbClockSync {
  private static final Logger LOG = Logger.getLogger(DbClockSync.class.getName());
  /** Every sync fails while the database is down: one line per 10 s. */
  private final ThrottledWarning syncFailures = new ThrottledWarning(LOG);

  private final Vertx vertx;
  private final DbTimeStore store;
  private final DbClock clock;
  /** Readings per sync at start (cold: the later ones are the fast ones) and per periodic sync. */
  static final int READINGS_AT_START = 5;
  static final int READINGS_PER_SYNC = 3;

  private final AtomicLong offsetMs = new AtomicLong();
  private long timerId = -1;

  /** One reading of the database clock and when it was asked for and answered, on both local clocks. */
  record Reading(long dbMicros, long sentNanos, long arrivedNanos, long sentWallMs, long arrivedWallMs) {
    long roundTripNanos() {
      return arrivedNanos - sentNanos;
    }
  }

  public DbClockSync(Vertx vertx, DbTimeStore store, DbClock clock) {
    this.vertx = vertx;
    this.store = store;
    this.clock = clock;
  }

  public Future<Void> start(long intervalMs) {
    return sync(READINGS_AT_START).onSuccess(v -> timerId = vertx.setPeriodic(intervalMs, id -> sync(READINGS_PER_SYNC)
        .onFailure(e -> syncFailures.log("database clock sync failed; keeping the last anchor", e))));
  }

  public void stop() {
    if (timerId >= 0) {
      vertx.cancelTimer(timerId);
    }
  }

  public long offsetMillis() {
    return offsetMs.get();
  }

  private Future<Void> sync(int readings) {
    return read(readings, new ArrayList<>()).map(taken -> {
      Reading best = tightest(taken);
      clock.anchorMicros(best.dbMicros(), best.arrivedNanos());
      // The database read its clock somewhere within the round trip: a slow round trip must not be
      // mistaken for clock skew by the 50 ms alert (see offset()).
      offsetMs.set(offset(best.sentWallMs(), best.arrivedWallMs(), Math.floorDiv(best.dbMicros(), 1_000L)));
      return null;
    });
  }

  /** {@code left} readings one after the other (each on a warmer path than the last). */
  private Future<List<Reading>> read(int left, List<Reading> taken) {
    if (left == 0) {
      return Future.succeededFuture(taken);
    }
    long sentWallMs = System.currentTimeMillis();
    long sentNanos = clock.monoNanos();
    return store.nowMicros().compose(dbMicros -> {
      taken.add(new Reading(dbMicros, sentNanos, clock.monoNanos(), sentWallMs, System.currentTimeMillis()));
      return read(left - 1, taken);
    });
  }

  /** The reading with the shortest round trip: its anchor lags the database the least. */
  static Reading tightest(List<Reading> readings) {
    Reading best = readings.get(0);
    for (Reading r : readings) {
      if (r.roundTripNanos() < best.roundTripNanos()) {
        best = r;
      }
    }
    return best;
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
