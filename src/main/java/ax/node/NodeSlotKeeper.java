package ax.node;

import ax.store.NodeSlotStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Holds this node's snowflake slot (the node part of task ids) as a renewed lease. If renewals fail
 * for longer than the TTL, another node may take the slot, so ids are only issued while
 * {@link #canIssueIds()} — submissions answer 503 meanwhile rather than risk a duplicate id.
 */
public final class NodeSlotKeeper {
  private static final Logger LOG = Logger.getLogger(NodeSlotKeeper.class.getName());
  public static final long TTL_MS = 120_000;

  private final Vertx vertx;
  private final NodeSlotStore store;
  private final String holder;
  private int slot = -1;
  private volatile long validUntilNanos;
  private long timerId = -1;

  public NodeSlotKeeper(Vertx vertx, NodeSlotStore store, String holder) {
    this.vertx = vertx;
    this.store = store;
    this.holder = holder;
  }

  /** Acquires a free slot (retrying races) and starts renewing it every TTL/4. */
  public Future<Integer> start() {
    return acquire(0).onSuccess(s -> {
      slot = s;
      timerId = vertx.setPeriodic(TTL_MS / 4, id -> renew());
    });
  }

  private Future<Integer> acquire(int attempt) {
    long sentAt = System.nanoTime();
    return store.tryAcquire(holder, TTL_MS).compose(got -> {
      if (got.isPresent()) {
        validUntilNanos = sentAt + (TTL_MS - TTL_MS / 4) * 1_000_000L;
        return Future.succeededFuture(got.get());
      }
      if (attempt >= 20) {
        return Future.failedFuture(new IllegalStateException("no free node slot (1024 nodes alive?)"));
      }
      return acquire(attempt + 1);
    });
  }

  private void renew() {
    long sentAt = System.nanoTime();
    store.renew(slot, holder, TTL_MS).onComplete(ar -> {
      if (ar.succeeded() && ar.result()) {
        validUntilNanos = sentAt + (TTL_MS - TTL_MS / 4) * 1_000_000L;
      } else {
        LOG.log(Level.WARNING, "renewing node slot " + slot + " failed", ar.cause());
      }
    });
  }

  public boolean canIssueIds() {
    return validUntilNanos - System.nanoTime() > 0;
  }

  public int slot() {
    return slot;
  }

  public Future<Void> stop() {
    vertx.cancelTimer(timerId);
    return slot < 0 ? Future.succeededFuture() : store.release(slot, holder);
  }
}
