package ax.verticles;

import ax.alert.AlertRule;
import ax.alert.AlertRules;
import ax.alert.AlertSettings;
import ax.alert.AlertTracker;
import ax.alert.FigureWindow;
import ax.alert.Observation;
import ax.bus.Addresses;
import ax.bus.FiguresMessage;
import ax.clock.DbClock;
import ax.leader.LeaderTerm;
import ax.store.AlertStore;
import io.vertx.core.Future;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Judges the alert rules that need the whole cluster's figures, in the leader's term (issue 13 part 4).
 * Every node reports its meters' changes on {@link Addresses#ALERT_FIGURES} ({@link AlertNodeVerticle});
 * this verticle, on the leader, consumes them into a {@link FigureWindow}, and every evaluation interval
 * judges the rules ({@link AlertRules}) plus the dependency skips read from alert_events, puts the
 * observations through the {@link AlertTracker} and writes each transition to PostgreSQL
 * ({@link AlertStore#fire}/{@link AlertStore#resolve}, fenced by the term), which queues its message.
 * Messages are posted by whichever node holds the delivery baton. At a term's start the alerts firing
 * in PostgreSQL are read back, so a new leader neither fires them again nor forgets them.
 *
 * <p>Owns the window and the tracker; "no leader" is not judged here (a leader cannot see its own absence).
 */
public final class AlertVerticle extends TermBoundVerticle {
  private static final Logger LOG = Logger.getLogger(AlertVerticle.class.getName());

  private final AlertStore store;
  private final DbClock clock;
  private final AlertSettings settings;
  private final AlertTracker tracker = new AlertTracker();
  private FigureWindow window;
  private MessageConsumer<JsonObject> figures;
  private long timerId = -1;
  private boolean evaluating;

  public AlertVerticle(AlertStore store, DbClock clock, AlertSettings settings) {
    this.store = store;
    this.clock = clock;
    this.settings = settings;
  }

  @Override
  protected void onTermStarted(LeaderTerm term) {
    tracker.clear();
    window = new FigureWindow(clock.nowMillis());
    evaluating = true; // until what is firing has been read back
    figures = vertx.eventBus().consumer(Addresses.ALERT_FIGURES, this::onFigures);
    store.firing().onComplete(inTerm(ar -> {
      if (ar.succeeded()) {
        ar.result().forEach(f -> AlertRule.byName(f.rule()).filter(r -> r != AlertRule.NO_LEADER)
            .ifPresent(r -> tracker.restoreFiring(r, f.key(), f.startedAtMs(), f.value())));
        evaluating = false;
        timerId = vertx.setPeriodic(settings.evalMs(), id -> evaluate());
      } else {
        LOG.log(Level.WARNING, "could not read the firing alerts; built-in alert rules wait for the next term", ar.cause());
      }
    }));
  }

  @Override
  protected void onTermEnded(LeaderTerm ended) {
    vertx.cancelTimer(timerId);
    if (figures != null) {
      figures.unregister();
      figures = null;
    }
    tracker.clear();
  }

  private void onFigures(Message<JsonObject> msg) {
    try {
      window.add(clock.nowMillis(), FiguresMessage.decode(msg.body()));
      msg.reply(null);
    } catch (IllegalArgumentException e) {
      msg.fail(400, e.getMessage());
    }
  }

  private void evaluate() {
    if (!leading() || evaluating) {
      return;
    }
    evaluating = true;
    LeaderTerm term = term();
    long now = clock.nowMillis();
    List<Observation> observations = new ArrayList<>(AlertRules.fromFigures(window, now, settings));
    window.prune(now, settings.windowMs() + settings.evalMs());
    store.skips(AlertRule.TASK_SKIPPED_BY_DEPENDENCY.lookbackMs(settings))
        .map(skips -> {
          observations.add(AlertRules.skipped(skips, settings));
          List<AlertTracker.Transition> transitions = new ArrayList<>();
          observations.forEach(o -> transitions.addAll(tracker.observe(o, now, o.rule().forMs(settings))));
          return transitions;
        })
        .compose(transitions -> apply(term, transitions, 0))
        .onComplete(ar -> {
          if (!stillIn(term)) {
            return;
          }
          evaluating = false;
          if (ar.failed()) {
            LOG.log(Level.WARNING, "alert evaluation failed; next in " + settings.evalMs() + " ms", ar.cause());
          }
        });
  }

  /** One transition after the other; a write that fails is undone in the tracker, to be made again. */
  private Future<Void> apply(LeaderTerm term, List<AlertTracker.Transition> transitions, int i) {
    if (i == transitions.size() || !stillIn(term)) {
      return Future.succeededFuture();
    }
    AlertTracker.Transition t = transitions.get(i);
    Future<Boolean> write = t instanceof AlertTracker.Fire f ? store.fire(term.fence(), f)
        : store.resolve(term.fence(), (AlertTracker.Resolve) t);
    return write.compose(won -> {
      if (won) {
        LOG.info("alert " + t.rule().alertName() + (t.key().isEmpty() ? "" : " {" + t.key() + "}")
            + (t instanceof AlertTracker.Fire ? " FIRING" : " RESOLVED"));
        if (t instanceof AlertTracker.Fire && t.rule() == AlertRule.TASK_SKIPPED_BY_DEPENDENCY) {
          return store.markSkipsAnnounced(t.key()).mapEmpty();
        }
      }
      return Future.<Void>succeededFuture();
    }, e -> {
      tracker.undo(t);
      LOG.log(Level.WARNING, "could not record alert " + t.rule().alertName() + "; trying again", e);
      return Future.succeededFuture();
    }).compose(v -> apply(term, transitions, i + 1));
  }
}
