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
 * <p>The reading is kept in microseconds. Anchored on a truncated millisecond, the estimate lagged by a
 * further 0–1 ms, drawn afresh at every sync, and every task of the spread that followed came that much
 * later (the bench's lateness p50 moved by 0.6 ms from one run to the next on the same jar).
 *
 * <p>The node's wall clock is never read, so an NTP step on the node cannot make the wheel skip or
 * burst; the estimate never moves backwards, even when a resync lands slightly behind. Thread-safe.
 */
public final class DbClock {

  private record Anchor(long dbMicros, long monoNanos) {
    /** The estimate at {@code mono}, in nanoseconds since the epoch (fits a long until 2262). */
    long epochNanosAt(long mono) {
      return dbMicros * 1_000L + (mono - monoNanos);
    }
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

  /** Records a database reading, in epoch microseconds, taken no later than {@code monoNanosAtArrival}. */
  public void anchorMicros(long dbMicros, long monoNanosAtArrival) {
    anchor = new Anchor(dbMicros, monoNanosAtArrival);
  }

  /** As {@link #anchorMicros}, for a reading in whole milliseconds. */
  public void anchorMillis(long dbMillis, long monoNanosAtArrival) {
    anchorMicros(dbMillis * 1_000L, monoNanosAtArrival);
  }

  public long monoNanos() {
    return monoNanos.getAsLong();
  }

  /** Estimated database time in epoch milliseconds; monotonic. */
  public long nowMillis() {
    long estimate = Math.floorDiv(anchor().epochNanosAt(monoNanos.getAsLong()), 1_000_000L);
    return lastReturned.accumulateAndGet(estimate, Math::max);
  }

  /**
   * How long until {@link #nowMillis()} reaches {@code atMs}, in nanoseconds; 0 once it has. A timer set
   * for this long ends at the instant itself, not at the next whole millisecond after it.
   */
  public long nanosUntil(long atMs) {
    long mono = monoNanos.getAsLong();
    if (nowMillis() >= atMs) {
      return 0;
    }
    return Math.max(1, atMs * 1_000_000L - anchor().epochNanosAt(mono));
  }

  private Anchor anchor() {
    Anchor a = anchor;
    if (a == null) {
      throw new IllegalStateException("DbClock used before its first sync with the database");
    }
    return a;
  }
}
