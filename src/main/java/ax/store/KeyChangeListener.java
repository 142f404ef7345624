package ax.store;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;

import java.util.function.Consumer;

/**
 * Hears every committed change of an access key ({@link ApiKeyStore#CHANGES_CHANNEL}: admin API, CLI,
 * AX_BOOTSTRAP_KEY) on a connection of its own. Changes announced while the connection was down are not
 * replayed by PostgreSQL, so each (re)subscription is reported too: the listener then forgets every
 * cached key. A lost connection is re-established every second ({@link PgListening}).
 */
public final class KeyChangeListener {
  private final PgListening listening;

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
    listening = new PgListening(vertx, pg, "access-key changes (cached keys expire within 30 s meanwhile)");
    listening.channel(ApiKeyStore.CHANGES_CHANNEL).subscribeHandler(v -> subscribed.run()).handler(changed::accept);
  }

  public void start() {
    listening.start();
  }

  public Future<Void> stop() {
    return listening.stop();
  }
}
