package ax.verticles;

import ax.bus.Addresses;
import ax.leader.LeaderTerm;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;

import java.util.function.Consumer;

/**
 * A verticle whose work belongs to this node's leader term: the wheel, dispatch, recovery and the
 * executor dispatch. It follows {@link Addresses#LEADER_CHANGED} (published by {@link LeaderVerticle})
 * and is told when a term starts and when it ends — including a direct change from one term to the
 * next. Everything asynchronous it starts in a term is continued through {@link #inTerm}, the one place
 * that checks that the term still lasts when the answer arrives; work of an ended term is dropped
 * (PostgreSQL keeps every task, the next term starts from there).
 */
abstract class TermBoundVerticle extends VerticleBase {
  private LeaderTerm term;

  @Override
  public final Future<?> start() {
    vertx.eventBus().<LeaderTerm>localConsumer(Addresses.LEADER_CHANGED, msg -> changeTerm(msg.body()));
    return startRole();
  }

  /** Sets up what the verticle does in every role (local consumers, gauges). */
  protected Future<?> startRole() {
    return Future.succeededFuture();
  }

  /** This node now leads in {@code term}. */
  protected abstract void onTermStarted(LeaderTerm term);

  /** {@code ended} is over: drop what belonged to it. */
  protected abstract void onTermEnded(LeaderTerm ended);

  private void changeTerm(LeaderTerm next) {
    LeaderTerm previous = term;
    term = next;
    boolean wasLeading = previous != null && previous.leader();
    if (wasLeading && !previous.sameTermAs(next)) {
      onTermEnded(previous);
    }
    if (next.leader() && !next.sameTermAs(previous)) {
      onTermStarted(next);
    }
  }

  /** True while this node leads. */
  protected final boolean leading() {
    return term != null && term.leader();
  }

  /** The current leading term; only call while {@link #leading()}. */
  protected final LeaderTerm term() {
    if (!leading()) {
      throw new IllegalStateException(getClass().getSimpleName() + " is not leading");
    }
    return term;
  }

  /** Whether {@code t} is still the current leading term. */
  protected final boolean stillIn(LeaderTerm t) {
    return term != null && term.sameTermAs(t);
  }

  /**
   * Continues {@code then} with the answer only if the term that is current now still lasts when it
   * arrives; otherwise the answer is dropped.
   */
  protected final <T> Handler<AsyncResult<T>> inTerm(Handler<AsyncResult<T>> then) {
    LeaderTerm started = term;
    return ar -> {
      if (started != null && started.leader() && stillIn(started)) {
        then.handle(ar);
      }
    };
  }

  /** Runs {@code action} with the current term if this node leads. */
  protected final void ifLeading(Consumer<LeaderTerm> action) {
    if (leading()) {
      action.accept(term);
    }
  }
}
