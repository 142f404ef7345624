package ax.verticles;

import ax.api.auth.ApiKeyCache;
import ax.bus.Addresses;
import ax.store.KeyChangeListener;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.MessageConsumer;

import java.util.logging.Logger;

/**
 * Keeps this node's cached access keys true to the database: a key changed anywhere (the admin API on
 * any node, the CLI, a node starting with AX_BOOTSTRAP_KEY) is forgotten here at once, so the next
 * request reads it again. Two announcements carry a change: PostgreSQL's (sent on commit by the
 * statement that made it, reaching every node, the CLI's changes included) and the event bus's (the
 * admin API publishes after commit, cluster-wide, and still reaches the nodes while their listening
 * connection reconnects). Either suffices; a key forgotten twice costs one extra read.
 */
public final class KeyChangesVerticle extends VerticleBase {
  private static final Logger LOG = Logger.getLogger(KeyChangesVerticle.class.getName());

  static final long SUBSCRIBE_WAIT_MS = 5_000;

  private final ApiKeyCache keys;
  private final KeyChangeListener.Connector connector;
  private KeyChangeListener listener;
  private MessageConsumer<String> consumer;

  public KeyChangesVerticle(ApiKeyCache keys, KeyChangeListener.Connector connector) {
    this.keys = keys;
    this.connector = connector;
  }

  /**
   * Started once the announcements are heard (so the node serves no request before a change would reach
   * it), or after {@link #SUBSCRIBE_WAIT_MS} without that — the listener keeps trying, and the cache's
   * expiry covers the gap.
   */
  @Override
  public Future<?> start() {
    consumer = vertx.eventBus().consumer(Addresses.KEY_CHANGED, m -> keys.evict(m.body()));
    Promise<Void> listening = Promise.promise();
    listener = connector.open(vertx, keys::evict, () -> {
      LOG.fine("listening for access-key changes; cached keys forgotten");
      keys.evictAll();
      listening.tryComplete();
    });
    listener.start();
    vertx.setTimer(SUBSCRIBE_WAIT_MS, id -> {
      if (listening.tryComplete()) {
        LOG.warning("not yet listening for access-key changes after " + SUBSCRIBE_WAIT_MS + " ms; starting anyway "
            + "(the admin API's event-bus announcements still arrive; cached keys expire within 30 s)");
      }
    });
    return Future.all(consumer.completion(), listening.future());
  }

  @Override
  public Future<?> stop() {
    return Future.join(consumer.unregister(), listener.stop());
  }
}
