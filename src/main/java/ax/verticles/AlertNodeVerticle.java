package ax.verticles;

import ax.alert.AlertFormat;
import ax.alert.AlertNotice;
import ax.alert.AlertRule;
import ax.alert.AlertRules;
import ax.alert.AlertSettings;
import ax.alert.AlertTracker;
import ax.alert.NodeFigures;
import ax.alert.Throttle;
import ax.bus.Addresses;
import ax.bus.FiguresMessage;
import ax.clock.DbClock;
import ax.http.AlertPoster;
import ax.logging.LogThrottle;
import ax.metrics.AxMetrics;
import ax.store.AlertStore;
import ax.store.AlertStore.Claimed;
import ax.store.LeaseStore;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Built-in alerting's part on every node (issue 13 part 4), one step per {@code AX_ALERT_EVAL_MS}:
 * <ol>
 *   <li><b>report</b> this node's meter changes to the leader ({@link Addresses#ALERT_FIGURES}); changes
 *       not answered are added to the next report, so a leader change loses none of them;
 *   <li><b>judge "no leader"</b> from the lease row, the one rule a leader cannot judge; every node does,
 *       and the conditional transition in PostgreSQL lets exactly one of them start (or end) the episode;
 *   <li><b>deliver</b> queued messages if this node holds (or takes) the delivery baton: the per-minute
 *       cap ({@link Throttle}), the format, the post with a bounded number of tries.
 * </ol>
 * Owns the report's last acknowledged totals, the no-leader tracker and the log throttle.
 */
public final class AlertNodeVerticle extends VerticleBase {
  private static final Logger LOG = Logger.getLogger(AlertNodeVerticle.class.getName());
  private static final int BATCH = 50;

  /**
   * @param nodeId the node's id in reports (AX_NODE_ID)
   * @param holder the process-unique name the delivery baton is held under
   */
  public record Settings(String nodeId, String holder, AlertSettings alerts, AlertFormat format) {
  }

  private final AlertStore store;
  private final AlertPoster poster;
  private final DbClock clock;
  private final AxMetrics metrics;
  private final Settings settings;
  private final AlertSettings alerts;
  private final AlertTracker noLeader = new AlertTracker();
  private final LogThrottle failureLog = new LogThrottle(60_000);
  private NodeFigures acknowledged;
  private boolean reporting;
  private boolean judging;
  private boolean delivering;
  private long timerId = -1;

  public AlertNodeVerticle(AlertStore store, AlertPoster poster, DbClock clock, AxMetrics metrics, Settings settings) {
    this.store = store;
    this.poster = poster;
    this.clock = clock;
    this.metrics = metrics;
    this.settings = settings;
    this.alerts = settings.alerts();
  }

  @Override
  public Future<?> start() {
    acknowledged = NodeFigures.zero(settings.nodeId());
    // Restore "no leader" if it is firing: this node may have to resolve what another node fired.
    return store.firing().onSuccess(firing -> firing.stream().filter(f -> f.rule().equals(AlertRule.NO_LEADER.alertName()))
            .forEach(f -> noLeader.restoreFiring(AlertRule.NO_LEADER, f.key(), f.startedAtMs(), f.value())))
        .onSuccess(v -> timerId = vertx.setPeriodic(alerts.evalMs(), id -> step()));
  }

  @Override
  public Future<?> stop() {
    vertx.cancelTimer(timerId);
    return Future.succeededFuture();
  }

  private void step() {
    report();
    judgeNoLeader();
    deliver();
  }

  private void report() {
    if (reporting) {
      return;
    }
    reporting = true;
    NodeFigures totals = metrics.alertFigures(settings.nodeId());
    vertx.eventBus().request(Addresses.ALERT_FIGURES, FiguresMessage.encode(totals.minus(acknowledged)),
            new DeliveryOptions().setSendTimeout(alerts.evalMs()))
        .onComplete(ar -> {
          reporting = false;
          if (ar.succeeded()) {
            acknowledged = totals;
          } // else no leader now, or it did not answer: these changes go with the next report
        });
  }

  private void judgeNoLeader() {
    if (judging) {
      return;
    }
    judging = true;
    long now = clock.nowMillis();
    store.leaseLive(LeaseStore.SCHEDULER)
        .compose(live -> {
          List<AlertTracker.Transition> ts = noLeader.observe(AlertRules.noLeader(live, alerts.leaseTtlMs()), now,
              AlertRule.NO_LEADER.forMs(alerts));
          Future<Void> done = Future.succeededFuture();
          for (AlertTracker.Transition t : ts) {
            done = done.compose(v -> (t instanceof AlertTracker.Fire f ? store.fire(null, f)
                    : store.resolve(null, (AlertTracker.Resolve) t))
                .onSuccess(won -> {
                  if (won) {
                    LOG.warning("alert " + t.rule().alertName() + (t instanceof AlertTracker.Fire ? " FIRING" : " RESOLVED"));
                  }
                })
                .onFailure(e -> noLeader.undo(t))
                .mapEmpty());
          }
          return done;
        })
        .onComplete(ar -> {
          judging = false;
          if (ar.failed()) {
            logFailure("could not judge the no-leader alert: " + ar.cause());
          }
        });
  }

  private void deliver() {
    if (delivering) {
      return;
    }
    delivering = true;
    store.firing().onSuccess(f -> metrics.recordAlertsFiring(f.size()));
    store.claim(settings.holder(), BATCH, alerts.holdMs())
        .compose(claimed -> claimed.isEmpty() ? Future.succeededFuture() : store.sentLastMinute()
            .compose(sent -> send(claimed, sent)))
        .onComplete(ar -> {
          delivering = false;
          if (ar.failed()) {
            logFailure("alert delivery round failed: " + ar.cause());
          }
        });
  }

  private Future<Void> send(List<Claimed> claimed, int sentLastMinute) {
    List<Claimed> due = new ArrayList<>();
    List<Claimed> unreported = new ArrayList<>();
    claimed.forEach(c -> (c.suppressed() ? unreported : due).add(c));
    Throttle.Plan<Claimed> plan = Throttle.plan(sentLastMinute, alerts.maxPerMinute(), due, unreported.size());
    Future<Void> done = Future.succeededFuture();
    if (plan.summarise()) {
      AlertNotice summary = Throttle.summary(unreported.stream().map(Claimed::notice).toList(), alerts.maxPerMinute(),
          clock.nowMillis());
      done = poster.post(settings.format().render(summary)).compose(r -> {
        if (!r.ok()) {
          logFailure("alert summary not delivered: " + r.error());
          return Future.succeededFuture(); // its claims run out; summarised later
        }
        return store.summarised(unreported, summary, "summary-" + UUID.randomUUID()).mapEmpty();
      });
    }
    for (Claimed c : plan.suppress()) {
      done = done.compose(v -> store.suppressed(c).onSuccess(ok -> metrics.recordAlertMessage("suppressed")).mapEmpty());
    }
    for (Claimed c : plan.send()) {
      done = done.compose(v -> poster.post(settings.format().render(c.notice())).compose(r -> {
        if (r.ok()) {
          metrics.recordAlertMessage("sent");
          return store.sent(c).mapEmpty();
        }
        return store.failed(c, r.error(), AlertSettings.MAX_TRIES, alerts.retryAfterMs(c.tries() + 1)).map(gaveUp -> {
          metrics.recordAlertMessage(gaveUp ? "gave_up" : "failed");
          logFailure("alert " + c.rule() + " " + c.notice().status().wire() + " not delivered (try " + (c.tries() + 1)
              + " of " + AlertSettings.MAX_TRIES + (gaveUp ? ", giving up" : "") + "): " + r.error());
          return null;
        });
      }));
    }
    return done;
  }

  /** At most one line a minute: a dead chat service must not flood the node's log. */
  private void logFailure(String line) {
    // monotonic: a wall clock stepped back an hour would otherwise silence these lines for that hour
    long held = failureLog.admit(System.nanoTime() / 1_000_000);
    if (held >= 0) {
      LOG.log(Level.WARNING, line + (held > 0 ? " (" + held + " similar lines held back)" : ""));
    }
  }
}
