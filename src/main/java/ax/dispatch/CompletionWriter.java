package ax.dispatch;

import ax.logging.ThrottledWarning;
import ax.store.StoreErrors;
import ax.task.Completion;
import ax.task.Settled;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Group commit for the outcomes of this node's HTTP calls: collects completions and writes them in one
 * statement per batch (at {@code batchSize} entries or {@code lingerMs} after the first, whichever comes
 * first). The write is fenced by attempt, not by the lease (see {@link OutcomeBacklog}), so it is tried
 * whether or not this node leads: a failed write keeps its outcomes and tries again every second until
 * the database takes them. An outcome the database refuses for a reason that retrying cannot fix (a
 * constraint, bad data) is found by writing its batch one by one, then dropped and counted, so it cannot
 * block the others. Confined to its owning verticle's context.
 */
public final class CompletionWriter {
  private static final Logger LOG = Logger.getLogger(CompletionWriter.class.getName());
  /** Every batch fails while the database is down: one line per 10 s. */
  private final ThrottledWarning writeFailures = new ThrottledWarning(LOG);
  private static final int MAX_CONCURRENT_FLUSHES = 2;
  private static final long RETRY_DELAY_MS = 1_000;

  /** What happened to the outcomes of a write. */
  public interface Listener {
    /** Of the outcomes in {@code batch}, {@code applied} were accepted; the rest were stale (the task moved on). */
    void written(List<Completion> batch, List<Settled> applied);

    /** Outcomes given up on: the backlog was full, or the database refused them for good. */
    void dropped(int outcomes, String why);
  }

  private final Vertx vertx;
  private final Function<List<Completion>, Future<List<Settled>>> write;
  private final OutcomeBacklog backlog;
  private final int batchSize;
  private final long lingerMs;
  private final Listener listener;

  private List<Completion> pending = new ArrayList<>();
  private long lingerTimer = -1;
  private int flushing;

  public CompletionWriter(Vertx vertx, Function<List<Completion>, Future<List<Settled>>> write,
                          OutcomeBacklog backlog, int batchSize, long lingerMs, Listener listener) {
    this.vertx = vertx;
    this.write = write;
    this.backlog = backlog;
    this.batchSize = batchSize;
    this.lingerMs = lingerMs;
    this.listener = listener;
  }

  public void add(Completion c) {
    if (!backlog.outcomeQueued()) {
      backlog.settled(List.of(c.taskId()), 0);
      listener.dropped(1, "the outcome backlog is full (" + backlog.cap() + ")");
      return;
    }
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
    while (!pending.isEmpty() && flushing < MAX_CONCURRENT_FLUSHES) {
      List<Completion> batch;
      if (pending.size() <= batchSize) {
        batch = pending;
        pending = new ArrayList<>();
      } else {
        batch = new ArrayList<>(pending.subList(0, batchSize));
        pending = new ArrayList<>(pending.subList(batchSize, pending.size()));
      }
      flushing++;
      write(batch).onComplete(ar -> {
        flushing--;
        flush();
      });
    }
  }

  /** Writes one batch; on a permanent refusal of a larger batch, each outcome alone to find the culprit. */
  private Future<Void> write(List<Completion> batch) {
    return write.apply(batch).transform(ar -> {
      if (ar.succeeded()) {
        settled(batch);
        listener.written(batch, ar.result());
        return Future.succeededFuture();
      }
      if (StoreErrors.isTransient(ar.cause())) {
        writeFailures.log("writing " + batch.size() + " outcomes failed; keeping them, retrying in "
            + RETRY_DELAY_MS + " ms", ar.cause());
        vertx.setTimer(RETRY_DELAY_MS, id -> {
          pending.addAll(0, batch);
          flush();
        });
        return Future.succeededFuture();
      }
      if (batch.size() == 1) {
        LOG.log(Level.SEVERE, "the database refuses the outcome of task " + batch.get(0).taskId() + " attempt "
            + batch.get(0).attempt() + " for good; dropping it (recovery fires the task again)", ar.cause());
        settled(batch);
        listener.dropped(1, "refused by the database: " + ar.cause().getMessage());
        return Future.succeededFuture();
      }
      Future<Void> alone = Future.succeededFuture();
      for (Completion c : batch) {
        alone = alone.compose(v -> write(List.of(c)));
      }
      return alone;
    });
  }

  private void settled(List<Completion> batch) {
    List<Long> ids = new ArrayList<>(batch.size());
    batch.forEach(c -> ids.add(c.taskId()));
    backlog.settled(ids, batch.size());
  }
}
