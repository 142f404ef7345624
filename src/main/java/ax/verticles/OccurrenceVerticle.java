package ax.verticles;

import ax.bus.Addresses;
import ax.bus.LocalCodec;
import ax.bus.TaskBatch;
import ax.leader.LeaderTerm;
import ax.logging.ThrottledWarning;
import ax.metrics.AxMetrics;
import ax.schedule.ScheduleSettings;
import ax.store.RecurringScheduleStore;
import ax.store.RecurringScheduleStore.Materialised;
import io.vertx.core.Future;

import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Creates the occurrences of recurring schedules (issue 12), in the leader's term only: every
 * {@code intervalMs} it asks {@link RecurringScheduleStore#materialiseDue} for the schedules whose due
 * times enter the load window, a page at a time, and hands the new occurrences to the wheel like new
 * submissions; {@link Addresses#SCHEDULES_CHANGED} asks for a pass at once. Everything it writes is fenced by the term; a pass that fails is simply repeated — the
 * unique occurrence key makes a repeat harmless.
 */
public final class OccurrenceVerticle extends TermBoundVerticle {
  private static final Logger LOG = Logger.getLogger(OccurrenceVerticle.class.getName());
  /** Every pass fails while the database is down: one line per 10 s. */
  private final ThrottledWarning passFailures = new ThrottledWarning(LOG);

  /**
   * @param intervalMs how often the leader looks for schedules coming due
   * @param windowMs   how far ahead occurrences are created (the load window)
   * @param pageSize   schedules per transaction
   */
  public record Settings(long intervalMs, long windowMs, int pageSize, ScheduleSettings planning) {
    public Settings {
      if (intervalMs < 1 || windowMs < intervalMs || pageSize < 1 || planning == null) {
        throw new IllegalArgumentException("occurrence settings out of range: " + intervalMs + ", " + windowMs
            + ", " + pageSize);
      }
    }
  }

  private final RecurringScheduleStore store;
  private final LongSupplier ids;
  private final AxMetrics metrics;
  private final Settings settings;
  private long timerId = -1;
  private boolean running;
  private boolean again;

  public OccurrenceVerticle(RecurringScheduleStore store, LongSupplier ids, AxMetrics metrics, Settings settings) {
    this.store = store;
    this.ids = ids;
    this.metrics = metrics;
    this.settings = settings;
  }

  @Override
  protected Future<?> startRole() {
    // Cluster-wide: a schedule created on any node may be due at once; only the leader acts on it.
    vertx.eventBus().consumer(Addresses.SCHEDULES_CHANGED, msg -> pass());
    return Future.succeededFuture();
  }

  @Override
  protected void onTermStarted(LeaderTerm term) {
    running = false;
    timerId = vertx.setPeriodic(settings.intervalMs(), id -> pass());
    pass();
  }

  @Override
  protected void onTermEnded(LeaderTerm ended) {
    vertx.cancelTimer(timerId);
  }

  private void pass() {
    if (!leading()) {
      return;
    }
    if (running) {
      again = true; // e.g. a schedule created while a pass runs: look once more right after
      return;
    }
    running = true;
    again = false;
    page(term()).onComplete(inTerm(ar -> {
      running = false;
      if (ar.failed()) {
        passFailures.log("creating schedule occurrences failed; retrying in " + settings.intervalMs() + " ms",
            ar.cause());
      } else if (again) {
        pass();
      }
    }));
  }

  /** One page; a full page means more may be due, so the next follows at once. */
  private Future<Void> page(LeaderTerm term) {
    return store.materialiseDue(term.fence(), settings.windowMs(), settings.pageSize(), settings.planning(), ids)
        .compose(m -> {
          if (!stillIn(term)) {
            return Future.succeededFuture();
          }
          record(m);
          return m.schedules() == settings.pageSize() ? page(term) : Future.succeededFuture();
        });
  }

  private void record(Materialised m) {
    metrics.recordOccurrences(m.created(), m.misfired());
    if (!m.toWheel().isEmpty()) {
      vertx.eventBus().send(Addresses.WHEEL_SCHEDULE, new TaskBatch(m.toWheel()), LocalCodec.localOnly());
    }
  }
}
