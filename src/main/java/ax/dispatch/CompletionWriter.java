package ax.dispatch;

import ax.store.ScheduleStore;
import ax.store.ScheduleStore.Applied;
import ax.store.ScheduleStore.Fence;
import io.vertx.core.Vertx;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Group commit for outcomes: collects completions and writes them in one statement per batch (at
 * {@code batchSize} entries or {@code lingerMs} after the first, whichever comes first). A failed write
 * keeps its entries and is retried; if the node dies first, the tasks are still RUNNING in PostgreSQL
 * and the recovery scan hands them to the retry policy. Confined to its owning verticle's context.
 */
public final class CompletionWriter {
  private static final Logger LOG = Logger.getLogger(CompletionWriter.class.getName());
  private static final int MAX_CONCURRENT_FLUSHES = 2;
  private static final long RETRY_DELAY_MS = 1_000;
  private static final long HOLD_RETRY_MS = 200;

  private final Vertx vertx;
  private final ScheduleStore store;
  private final int batchSize;
  private final long lingerMs;
  /** Receives (applied rows, number requested) after each successful write. */
  private final BiConsumer<List<Applied>, Integer> onApplied;
  /** The current leader term's fence: outcomes of a deposed leader are refused by the database. */
  private final Supplier<Fence> fence;

  private List<Completion> pending = new ArrayList<>();
  private long lingerTimer = -1;
  private int flushing;
  private long heldSinceNanos = -1;
  private final long holdLimitMs;

  public CompletionWriter(Vertx vertx, ScheduleStore store, int batchSize, long lingerMs, Supplier<Fence> fence,
                          long holdLimitMs, BiConsumer<List<Applied>, Integer> onApplied) {
    this.holdLimitMs = holdLimitMs;
    this.fence = fence;
    this.vertx = vertx;
    this.store = store;
    this.batchSize = batchSize;
    this.lingerMs = lingerMs;
    this.onApplied = onApplied;
  }

  /**
   * This node is not leading right now (e.g. a renewal came too late under load and it stepped down):
   * the outcomes would be refused by the lease fence and their tasks re-run by recovery. They are held
   * and written if this node leads again soon — still fenced by attempt, so a task another leader has
   * re-dispatched meanwhile refuses them. Held longer than {@code holdLimitMs}, they are dropped: another
   * leader's recovery has taken over those tasks.
   */
  private void holdWhileStandby() {
    long now = System.nanoTime();
    if (heldSinceNanos < 0) {
      heldSinceNanos = now;
    }
    if (now - heldSinceNanos > holdLimitMs * 1_000_000L) {
      LOG.warning("dropping " + pending.size() + " outcomes held while not leading; the leader's recovery "
          + "retries their tasks");
      onApplied.accept(List.of(), pending.size());
      pending = new ArrayList<>();
      heldSinceNanos = -1;
      return;
    }
    if (lingerTimer < 0) {
      lingerTimer = vertx.setTimer(HOLD_RETRY_MS, id -> {
        lingerTimer = -1;
        flush();
      });
    }
  }

  public void add(Completion c) {
    pending.add(c);
    if (pending.size() >= batchSize) {
      flush();
    } else if (lingerTimer < 0) {
      lingerTimer = vertx.setTimer(lingerMs, id -> {
        lingerTimer = -1;
        flush();
      });
    }
  }

  private void flush() {
    if (pending.isEmpty() || flushing >= MAX_CONCURRENT_FLUSHES) {
      return;
    }
    if (fence.get().epoch() == 0) {
      holdWhileStandby();
      return;
    }
    heldSinceNanos = -1;
    List<Completion> batch = pending.size() <= batchSize ? pending : new ArrayList<>(pending.subList(0, batchSize));
    pending = pending.size() <= batchSize ? new ArrayList<>() : new ArrayList<>(pending.subList(batchSize, pending.size()));
    flushing++;
    store.completeRunning(batch, fence.get()).onComplete(ar -> {
      flushing--;
      if (ar.succeeded()) {
        onApplied.accept(ar.result(), batch.size());
      } else {
        LOG.log(Level.WARNING, "writing " + batch.size() + " outcomes failed; retrying in " + RETRY_DELAY_MS + " ms",
            ar.cause());
        vertx.setTimer(RETRY_DELAY_MS, id -> {
          pending.addAll(0, batch);
          flush();
        });
      }
      if (!pending.isEmpty() && lingerTimer < 0) {
        flush();
      }
    });
  }
}
