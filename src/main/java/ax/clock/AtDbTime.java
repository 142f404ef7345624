package ax.clock;

import io.vertx.core.Vertx;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

/**
 * Runs an action at an instant of the {@link DbClock}, never before. Claims are taken ahead of their
 * trigger time (R4); what they hold is released here, at its millisecond.
 *
 * <p>A Vert.x timer measures its delay on this node's monotonic clock, while the DbClock can advance a
 * little slower (a resync that lands behind holds it still), so a timer may fire before the instant: it
 * is then set again for the rest. The action gets the start of the hand-over's latency: the given start
 * when the instant had already come, else the moment of release, because time spent held is not latency.
 */
public final class AtDbTime {

  private AtDbTime() {
  }

  /** Runs {@code action} at {@code atMs} on {@code clock}, never before. */
  public static void run(Vertx vertx, DbClock clock, long atMs, long startNanos, LongConsumer action) {
    run(vertx, clock, atMs, startNanos, () -> true, action);
  }

  /**
   * As {@link #run(Vertx, DbClock, long, long, LongConsumer)}, but a held action is dropped when
   * {@code stillWanted} says no as its timer fires (a leader term that ended meanwhile, say).
   */
  public static void run(Vertx vertx, DbClock clock, long atMs, long startNanos, BooleanSupplier stillWanted,
      LongConsumer action) {
    long waitNanos = clock.nanosUntil(atMs);
    if (waitNanos <= 0) {
      action.accept(startNanos);
      return;
    }
    // In nanoseconds: a delay in whole milliseconds rounds the rest of the current one up, on average
    // half a millisecond of lateness for every task held (the native epoll transport times it finer).
    vertx.timer(waitNanos, TimeUnit.NANOSECONDS).onSuccess(v -> {
      if (stillWanted.getAsBoolean()) {
        run(vertx, clock, atMs, System.nanoTime(), stillWanted, action);
      }
    });
  }
}
