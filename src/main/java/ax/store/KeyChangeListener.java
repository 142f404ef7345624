package ax.store;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.pubsub.PgSubscriber;

import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Hears every committed change of an access key ({@link ApiKeyStore#CHANGES_CHANNEL}: admin API, CLI,
 * AX_BOOTSTRAP_KEY) on a connection of its own. Changes announced while the connection was down are not
 * replayed by PostgreSQL, so each (re)subscription is reported too: the listener then forgets every
 * cached key. A lost connection is re-established every second.
 */
public final class KeyChangeListener {
  private static final Logger LOG = Logger.getLogger(KeyChangeListener.class.getName());
  private static final long RECONNECT_MS = 1_000;

  private final Vertx vertx;
  private final PgSubscriber subscriber;
  private boolean stopped;

  /** Where listeners connect: the node's database, wired in once (SQL types stay in the stores). */
  public record Connector(PgConnectOptions pg) {
    /**
     * @param changed    the access key that changed
     * @param subscribed called on every (re)subscription: anything may have changed meanwhile
     */
    public KeyChangeListener open(Vertx vertx, Consumer<String> changed, Runnable subscribed) {
      return new KeyChangeListener(vertx, pg, changed, subscribed);
    }
  }

  private KeyChangeListener(Vertx vertx, PgConnectOptions pg, Consumer<String> changed, Runnable subscribed) {
    this.vertx = vertx;
    this.subscriber = PgSubscriber.subscriber(vertx, pg).reconnectPolicy(retries -> RECONNECT_MS);
    subscriber.channel(ApiKeyStore.CHANGES_CHANNEL).subscribeHandler(v -> subscribed.run()).handler(changed::accept);
  }

  public void start() {
    subscriber.connect().onFailure(e -> {
      if (!stopped) {
        LOG.warning("cannot listen for access-key changes yet (cached keys expire within 30 s meanwhile); "
            + "retrying in " + RECONNECT_MS + " ms: " + e.getMessage());
        vertx.setTimer(RECONNECT_MS, id -> {
          if (!stopped) {
            start();
          }
        });
      }
    });
  }

  public Future<Void> stop() {
    stopped = true;
    return subscriber.close();
  }
}
