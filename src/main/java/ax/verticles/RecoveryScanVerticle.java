package ax.verticles;

import ax.bus.Addresses;
import ax.bus.LeaderTerm;
import ax.bus.LocalCodec;
import ax.bus.TaskBatch;
import ax.clock.DbClock;
import ax.config.AxConfig.SchedulerTuning;
import ax.dispatch.Completion;
import ax.dispatch.OutcomePolicy;
import ax.metrics.AxMetrics;
import ax.store.AttemptBudget;
import ax.store.ScheduleStore;
import ax.store.ScheduleStore.Applied;
import ax.wheel.ScheduledTask;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The safety net (R4, R5), run by the leader at the start of its term and then every
 * {@code AX_RECOVERY_INTERVAL_MS}:
 * <ol>
 *   <li>DISPATCHING past its ack deadline → READY, back to the wheel;</li>
 *   <li>RUNNING past its run deadline (timeout_ms + a grace so a live owner's own timeout wins) → a
 *       failure through the retry policy. This is the one at-least-once window: a node killed after
 *       its HTTP call reached the target but before the outcome was written leaves the task RUNNING,
 *       and the retry calls the target again with attempt + 1. Counted as
 *       {@code ax_recovery_total{kind="running_timed_out"}};</li>
 *   <li>DELAYED/READY tasks overdue by more than a grace within the lookback window → to the wheel,
 *       which fires them at once (the wheel deduplicates ids it already holds).</li>
 * </ol>
 */
public final class RecoveryScanVerticle extends VerticleBase {
  private static final Logger LOG = Logger.getLogger(RecoveryScanVerticle.class.getName());
  private static final int SCAN_LIMIT = 5_000;
  private static final long RUNNING_GRACE_MS = 5_000;

  private final ScheduleStore store;
  private final DbClock clock;
  private final OutcomePolicy outcomes;
  private final SchedulerTuning tuning;
  private final AxMetrics metrics;

  private LeaderTerm term;
  private long timerId = -1;
  private boolean scanning;

  public RecoveryScanVerticle(ScheduleStore store, DbClock clock, OutcomePolicy outcomes, SchedulerTuning tuning,
                              AxMetrics metrics) {
    this.store = store;
    this.clock = clock;
    this.outcomes = outcomes;
    this.tuning = tuning;
    this.metrics = metrics;
  }

  @Override
  public Future<?> start() {
    vertx.eventBus().<LeaderTerm>localConsumer(Addresses.LEADER_CHANGED, msg -> {
      boolean wasLeader = term != null && term.leader();
      term = msg.body();
      if (term.leader() && !wasLeader) {
        timerId = vertx.setPeriodic(tuning.recoveryIntervalMs(), id -> scan());
        scan();
      } else if (!term.leader() && wasLeader) {
        vertx.cancelTimer(timerId);
      }
    });
    return Future.succeededFuture();
  }

  private void scan() {
    if (scanning || term == null || !term.leader()) {
      return;
    }
    scanning = true;
    rescueUnacked()
        .compose(v -> failOverdueRunning())
        .compose(v -> requeueOverdue())
        .onComplete(ar -> {
          scanning = false;
          if (ar.failed()) {
            LOG.log(Level.WARNING, "recovery scan failed; it runs again in " + tuning.recoveryIntervalMs() + " ms",
                ar.cause());
          }
        });
  }

  private Future<Void> rescueUnacked() {
    return store.rescueUnacked().map(tasks -> {
      metrics.recordRescuedUnacked(tasks.size());
      toWheel(tasks);
      return null;
    });
  }

  private Future<Void> failOverdueRunning() {
    return store.overdueRunning(RUNNING_GRACE_MS, SCAN_LIMIT).compose(overdue -> {
      if (overdue.isEmpty()) {
        return Future.succeededFuture();
      }
      long now = clock.nowMillis();
      List<Completion> batch = new ArrayList<>(overdue.size());
      for (AttemptBudget o : overdue) {
        batch.add(outcomes.failed(o.taskId(), o.attempt(), o.retryCount(), o.maxRetry(),
            "no outcome within timeout_ms (owner node lost or stalled); treated as a timeout", true, now));
      }
      return store.completeRunning(batch, fence()).map(applied -> {
        metrics.recordRescuedRunning(applied.size());
        LOG.warning("recovery: " + applied.size() + " RUNNING tasks past their deadline handed to the retry policy");
        toWheel(Applied.retries(applied));
        return null;
      });
    });
  }

  private Future<Void> requeueOverdue() {
    long graceMs = Math.max(5_000, 2 * tuning.loadIntervalMs());
    return store.overduePending(tuning.recoveryLookbackMs(), graceMs, SCAN_LIMIT).map(tasks -> {
      if (!tasks.isEmpty()) {
        metrics.recordRequeuedOverdue(tasks.size());
        LOG.info("recovery: " + tasks.size() + " overdue pending tasks re-queued");
        toWheel(tasks);
      }
      return null;
    });
  }

  private ScheduleStore.Fence fence() {
    return new ScheduleStore.Fence(LeaderVerticle.LEASE_NAME, term.holder(), term.epoch(), term.holder());
  }

  private void toWheel(List<ScheduledTask> tasks) {
    if (!tasks.isEmpty()) {
      vertx.eventBus().send(Addresses.WHEEL_SCHEDULE, new TaskBatch(tasks), LocalCodec.localOnly());
    }
  }
}
