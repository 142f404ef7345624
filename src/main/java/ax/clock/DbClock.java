package ax.clock;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Database time, estimated between syncs by a monotonic clock (R3).
 *
 * <p>Each sync anchors a database reading to the monotonic instant its answer <em>arrived</em>. The
 * database read its clock somewhere between our send and that arrival, so the estimate
 * {@code anchorDb + (mono - anchorMono)} can only lag true database time by the round trip, never
 * lead it: a task judged due here is due for the database too, and nothing fires early.
 *
 * <p>The node's wall clock is never read, so an NTP step on the node cannot make the wheel skip or
 * burst; the estimate never moves backwards, even when a resync lands slightly behind. Thread-safe.
 */
public final class DbClock {

  private record Anchor(long dbMillis, long monoNanos) {
  }

  private final LongSupplier monoNanos;
  private volatile Anchor anchor;
  private final AtomicLong lastReturned = new AtomicLong(Long.MIN_VALUE);

  public DbClock(LongSupplier monoNanos) {
    this.monoNanos = monoNanos;
  }

  public static DbClock system() {
    return new DbClock(System::nanoTime);
  }

  /** Records a database reading taken no later than {@code monoNanosAtArrival}. */
  public void anchor(long dbMillis, long monoNanosAtArrival) {
    anchor = new Anchor(dbMillis, monoNanosAtArrival);
  }

  public long monoNanos() {
    return monoNanos.getAsLong();
  }

  /** Estimated database time in epoch milliseconds; monotonic. */
  public long nowMillis() {
    Anchor a = anchor;
    if (a == null) {
      throw new IllegalStateException("DbClock used before its first sync with the database");
    }
    long estimate = a.dbMillis() + Math.floorDiv(monoNanos.getAsLong() - a.monoNanos(), 1_000_000L);
    return lastReturned.accumulateAndGet(estimate, Math::max);
  }
}
