package ax.verticles;

import ax.bus.Addresses;
import ax.bus.LocalCodec;
import ax.bus.TaskBatch;
import ax.clock.DbClock;
import ax.cluster.ClusterView;
import ax.dispatch.OutcomeBacklog;
import ax.leader.LeaderTerm;
import ax.logging.ThrottledWarning;
import ax.metrics.AxMetrics;
import ax.store.ScheduleStore;
import ax.store.ScheduleStore.Overdue;
import ax.store.ScheduleStore.TermInFlight;
import ax.task.AttemptBudget;
import ax.task.Completion;
import ax.task.OutcomePolicy;
import ax.task.OutcomeTally;
import ax.task.Settled;
import ax.wheel.ScheduledTask;
import io.vertx.core.Future;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The safety net (R4, R5), run by the leader at the start of its term, every
 * {@code AX_RECOVERY_INTERVAL_MS}, and whenever a cluster member leaves:
 * <ol>
 *   <li>DISPATCHING past its ack deadline → READY, back to the wheel;</li>
 *   <li>HTTP calls an older term left in flight whose holder has left the cluster → fired again at once,
 *       each as a new attempt; the lost one is recorded as LOST and does not use a retry
 *       ({@link OutcomePolicy#lost}). A holder that is still a member is given until the call's deadline
 *       to write its outcome back (step 3). Counted as {@code ax_attempts_lost_total{cause="holder_left"}}:
 *       these — calls of a holder that died mid-call — are the only calls ax may make twice;</li>
 *   <li>RUNNING past its run deadline (timeout_ms + a grace, so a live owner's own timeout wins): an HTTP
 *       call is lost the same way ({@code cause="no_outcome"}); an executor's task failed by timeout
 *       through the retry policy. Tasks this node still owes an outcome for are left alone
 *       ({@link OutcomeBacklog});</li>
 *   <li>DELAYED/READY tasks overdue by more than a grace within the lookback window → to the wheel,
 *       which fires them at once (the wheel deduplicates ids it already holds).</li>
 * </ol>
 * Every write here is fenced by the term.
 */
public final class RecoveryScanVerticle extends TermBoundVerticle {
  private static final Logger LOG = Logger.getLogger(RecoveryScanVerticle.class.getName());
  /** Every scan fails while the database is down: one line per 10 s. */
  private final ThrottledWarning scanFailures = new ThrottledWarning(LOG);

  /**
   * @param intervalMs     how often the scan runs
   * @param lookbackMs     how far back overdue pending tasks are looked for
   * @param pendingGraceMs how overdue a pending task must be before the scan (not the loader) re-queues it
   * @param runningGraceMs how long past its deadline a RUNNING task may stay before it is given up on
   * @param scanLimit      rows per step and scan
   */
  public record Settings(long intervalMs, long lookbackMs, long pendingGraceMs, long runningGraceMs, int scanLimit) {
    public Settings {
      if (intervalMs < 1 || lookbackMs < 1 || pendingGraceMs < 0 || runningGraceMs < 0 || scanLimit < 1) {
        throw new IllegalArgumentException("recovery settings out of range: " + this);
      }
    }

    /** Production values around the configurable ones: the pending grace covers two loader passes. */
    public static Settings of(long intervalMs, long lookbackMs, long loadIntervalMs) {
      return new Settings(intervalMs, lookbackMs, Math.max(5_000, 2 * loadIntervalMs), 5_000, 5_000);
    }
  }

  private final ScheduleStore store;
  private final DbClock clock;
  private final OutcomePolicy outcomes;
  private final OutcomeBacklog backlog;
  private final ClusterView cluster;
  private final AxMetrics metrics;
  private final Settings settings;

  private long timerId = -1;
  private boolean scanning;
  private boolean scanAgain;

  public RecoveryScanVerticle(ScheduleStore store, DbClock clock, OutcomePolicy outcomes, OutcomeBacklog backlog,
                              ClusterView cluster, AxMetrics metrics, Settings settings) {
    this.store = store;
    this.clock = clock;
    this.outcomes = outcomes;
    this.backlog = backlog;
    this.cluster = cluster;
    this.metrics = metrics;
    this.settings = settings;
  }

  @Override
  protected Future<?> startRole() {
    var context = vertx.getOrCreateContext();
    cluster.onMemberLeft(() -> context.runOnContext(v -> scan()));
    return Future.succeededFuture();
  }

  @Override
  protected void onTermStarted(LeaderTerm term) {
    scanning = false;
    timerId = vertx.setPeriodic(settings.intervalMs(), id -> scan());
    scan();
  }

  @Override
  protected void onTermEnded(LeaderTerm ended) {
    vertx.cancelTimer(timerId);
  }

  private void scan() {
    if (!leading()) {
      return;
    }
    if (scanning) {
      scanAgain = true; // e.g. a member left while a scan was running: look again right after
      return;
    }
    scanning = true;
    scanAgain = false;
    LeaderTerm term = term();
    rescueUnacked(term)
        .compose(v -> refireCallsOfDepartedHolders(term))
        .compose(v -> giveUpOnOverdueRunning(term))
        .compose(v -> requeueOverdue())
        .onComplete(inTerm(ar -> {
          scanning = false;
          if (ar.failed()) {
            scanFailures.log("recovery scan failed; it runs again in " + settings.intervalMs() + " ms",
                ar.cause());
          }
          if (scanAgain) {
            scan();
          }
        }));
  }

  private Future<Void> rescueUnacked(LeaderTerm term) {
    return store.rescueUnacked(term.fence()).map(tasks -> {
      metrics.recordRescuedUnacked(tasks.size());
      toWheel(tasks);
      return null;
    });
  }

  private Future<Void> refireCallsOfDepartedHolders(LeaderTerm term) {
    return store.termsWithCallsInFlight(term.lease(), term.epoch()).compose(terms -> {
      List<Long> departed = new ArrayList<>();
      StringBuilder who = new StringBuilder();
      for (TermInFlight t : terms) {
        if (!term.holder().equals(t.holder()) && cluster.hasLeft(t.member())) {
          departed.add(t.epoch());
          who.append(who.length() == 0 ? "" : ", ").append(t.holder()).append(" (epoch ").append(t.epoch()).append(')');
        }
      }
      if (departed.isEmpty()) {
        return Future.succeededFuture();
      }
      return store.callsOfTerms(departed, settings.scanLimit()).compose(calls -> {
        long now = clock.nowMillis();
        List<Completion> batch = new ArrayList<>(calls.size());
        for (AttemptBudget call : calls) {
          batch.add(outcomes.lost(call, "the node that made this call left the cluster with it in flight", now));
        }
        return store.settleLost(batch, term.fence()).map(settled -> {
          metrics.recordAttemptsLost("holder_left", settled.size());
          metrics.recordOutcomes(AxMetrics.Target.HTTP, OutcomeTally.of(batch, settled)); // lost too often: a timeout
          LOG.warning("recovery: " + settled.size() + " HTTP calls left in flight by " + who
              + ", which left the cluster, are fired again");
          toWheel(Settled.retriesOf(settled));
          return null;
        });
      });
    });
  }

  private Future<Void> giveUpOnOverdueRunning(LeaderTerm term) {
    return store.overdueRunning(settings.runningGraceMs(), settings.scanLimit()).compose(overdue -> {
      long now = clock.nowMillis();
      List<Completion> batch = new ArrayList<>(overdue.size());
      List<Completion> calls = new ArrayList<>();
      List<Completion> executorTasks = new ArrayList<>();
      int lost = 0;
      for (Overdue o : overdue) {
        AttemptBudget a = o.attempt();
        if (backlog.owes(a.taskId())) {
          continue; // this node's own call or outcome, still on its way: it will be written
        }
        Completion c;
        if (o.http()) {
          lost++;
          c = outcomes.lost(a, "no outcome by the call's deadline (its node is gone or stalled)", now);
          calls.add(c);
        } else {
          c = outcomes.failed(a.taskId(), a.attempt(), a.retryCount(), a.maxRetry(),
              "no outcome within timeout_ms from the executor running it; treated as a timeout", true, now);
          executorTasks.add(c);
        }
        batch.add(c);
      }
      if (batch.isEmpty()) {
        return Future.succeededFuture();
      }
      int lostCalls = lost;
      return store.settleLost(batch, term.fence()).map(settled -> {
        metrics.recordAttemptsLost("no_outcome", Math.min(lostCalls, settled.size()));
        metrics.recordRescuedRunning(batch.size() - lostCalls);
        // a call lost too often counts as a timeout (OutcomePolicy.lost); an executor's task past its deadline is one
        metrics.recordOutcomes(AxMetrics.Target.HTTP, OutcomeTally.of(calls, settled));
        metrics.recordOutcomes(AxMetrics.Target.EXECUTOR, OutcomeTally.of(executorTasks, settled));
        LOG.warning("recovery: " + settled.size() + " RUNNING tasks past their deadline given up on (" + lostCalls
            + " HTTP calls fired again, the rest through the retry policy)");
        toWheel(Settled.retriesOf(settled));
        return null;
      });
    });
  }

  private Future<Void> requeueOverdue() {
    return store.overduePending(settings.lookbackMs(), settings.pendingGraceMs(), settings.scanLimit()).map(tasks -> {
      if (!tasks.isEmpty()) {
        metrics.recordRequeuedOverdue(tasks.size());
        LOG.info("recovery: " + tasks.size() + " overdue pending tasks re-queued");
        toWheel(tasks);
      }
      return null;
    });
  }

  private void toWheel(List<ScheduledTask> tasks) {
    if (!tasks.isEmpty()) {
      vertx.eventBus().send(Addresses.WHEEL_SCHEDULE, new TaskBatch(tasks), LocalCodec.localOnly());
    }
  }
}
