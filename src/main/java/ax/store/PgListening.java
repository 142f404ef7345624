package ax.store;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.pubsub.PgChannel;
import io.vertx.pgclient.pubsub.PgSubscriber;

import java.util.logging.Logger;

/**
 * A LISTEN connection of its own for one kind of announcement: a lost connection is re-established every
 * second, and so is a first one that fails, until {@link #stop()}. Its users say what a gap costs.
 */
final class PgListening {
  private static final Logger LOG = Logger.getLogger(PgListening.class.getName());
  static final long RECONNECT_MS = 1_000;

  private final Vertx vertx;
  private final PgSubscriber subscriber;
  private final String what;
  private boolean stopped;

  /** @param what what is listened for and what covers a gap, for the log line of a failed connect */
  PgListening(Vertx vertx, PgConnectOptions pg, String what) {
    this.vertx = vertx;
    this.subscriber = PgSubscriber.subscriber(vertx, pg).reconnectPolicy(retries -> RECONNECT_MS);
    this.what = what;
  }

  PgChannel channel(String name) {
    return subscriber.channel(name);
  }

  void start() {
    subscriber.connect().onFailure(e -> {
      if (!stopped) {
        LOG.warning("cannot listen for " + what + " yet; retrying in " + RECONNECT_MS + " ms: " + e.getMessage());
        vertx.setTimer(RECONNECT_MS, id -> {
          if (!stopped) {
            start();
          }
        });
      }
    });
  }

  Future<Void> stop() {
    stopped = true;
    return subscriber.close();
  }
}
