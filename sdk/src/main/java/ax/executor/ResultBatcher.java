package ax.executor;

import ax.protocol.ResultReply;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sends results in batches to {@code ax.exec.result} and holds each one until the scheduler has answered
 * for it, so a leader failover or a dropped connection never loses a result: on failure the batch goes
 * back to the front of the queue and is sent again on the next flush (a new result, a heartbeat, a new
 * session). Applying twice is impossible on the server, so repeating is safe.
 *
 * <p>A batch leaves when {@value #MAX_BATCH} results are pending or {@value #LINGER_MS} ms after the
 * first of them, whichever is first; it is also capped in bytes to stay under the bridge's frame limit.
 * Confined to the executor's event-loop context except {@link #submit}, which any thread may call.
 */
final class ResultBatcher {
  private static final Logger LOG = Logger.getLogger(ResultBatcher.class.getName());
  static final int MAX_BATCH = 256;
  static final long LINGER_MS = 5;
  /** Leaves room under the 1 MiB frame limit for the envelope. */
  static final int MAX_BATCH_BYTES = 900 * 1024;
  /** Parallel batches on the wire; more only queues up on the leader. */
  static final int MAX_IN_FLIGHT = 4;

  private final Vertx vertx;
  private final Context context;
  /** Sends one batch's {@code results} array; answers {@code {"applied":[…],"refused":[…]}}. */
  private final Function<JsonArray, Future<JsonObject>> sender;
  private final ExecutorStats stats;

  private final ArrayDeque<TaskResult> pending = new ArrayDeque<>();
  /** Results handed over by worker threads, not yet taken by the event loop. */
  private final ConcurrentLinkedQueue<TaskResult> arrivals = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean takeScheduled = new AtomicBoolean();
  /** Keys queued or on the wire, so a re-sent dedupe outcome is not queued twice. */
  private final Set<DedupeKey> held = new HashSet<>();
  /** Submitted but not yet answered for; counted from any thread so drain sees results still on their way. */
  private final AtomicInteger outstanding = new AtomicInteger();
  private int inFlight;
  private long lingerTimer = -1;

  ResultBatcher(Vertx vertx, Context context, Function<JsonArray, Future<JsonObject>> sender, ExecutorStats stats) {
    this.vertx = vertx;
    this.context = context;
    this.sender = sender;
    this.stats = stats;
  }

  /**
   * Hands a result over from any thread. Results gather in {@link #arrivals} and the event loop takes
   * them all in one task: one wake-up per gathering instead of one per result (at thousands of no-op
   * tasks a second, waking the event loop for each result was a syscall and a context switch each).
   */
  void submit(TaskResult result) {
    outstanding.incrementAndGet();
    arrivals.add(result);
    if (takeScheduled.compareAndSet(false, true)) {
      try {
        context.runOnContext(v -> takeArrivals());
      } catch (RejectedExecutionException e) {
        // The executor was closed while this task ran; the scheduler rescues the attempt.
        takeScheduled.set(false);
        TaskResult dropped;
        while ((dropped = arrivals.poll()) != null) {
          outstanding.decrementAndGet();
          String id = dropped.taskId();
          LOG.fine(() -> "executor closed, dropping the result of task " + id);
        }
      }
    }
  }

  private void takeArrivals() {
    takeScheduled.set(false); // before polling: a result added after this schedules another pass
    TaskResult r;
    while ((r = arrivals.poll()) != null) {
      add(r);
    }
  }

  /** Results not yet answered for (queued, on the wire or still on their way to the event loop). */
  int outstanding() {
    return outstanding.get();
  }

  private void add(TaskResult result) {
    if (!held.add(result.key())) {
      outstanding.decrementAndGet(); // the same outcome is already queued or on the wire
      return;
    }
    pending.addLast(result);
    if (pending.size() >= MAX_BATCH) {
      flush();
    } else if (lingerTimer < 0) {
      lingerTimer = vertx.setTimer(LINGER_MS, id -> {
        lingerTimer = -1;
        flush();
      });
    }
  }

  /** Sends what is pending, up to {@link #MAX_IN_FLIGHT} batches at a time. Call on the context. */
  void flush() {
    while (!pending.isEmpty() && inFlight < MAX_IN_FLIGHT) {
      List<TaskResult> batch = takeBatch();
      JsonArray json = new JsonArray();
      batch.forEach(r -> json.add(r.toJson()));
      inFlight++;
      Future<JsonObject> answer;
      try {
        answer = sender.apply(json);
      } catch (RuntimeException e) {
        answer = Future.failedFuture(e);
      }
      answer.onComplete(ar -> {
        inFlight--;
        if (ar.succeeded()) {
          settle(batch, ar.result());
          // Results that queued behind the in-flight cap go now, not at the next result or heartbeat
          // (up to heartbeat_ms later: the slow tail of a burst, ResultBatcherTest).
          flush();
        } else {
          requeue(batch, ar.cause());
        }
      });
      if (answer.failed()) {
        return; // not connected: wait for the next trigger instead of spinning
      }
    }
  }

  private List<TaskResult> takeBatch() {
    List<TaskResult> batch = new ArrayList<>();
    int bytes = 0;
    while (!pending.isEmpty() && batch.size() < MAX_BATCH) {
      int size = pending.peekFirst().toJson().toBuffer().length();
      if (!batch.isEmpty() && bytes + size > MAX_BATCH_BYTES) {
        break;
      }
      batch.add(pending.pollFirst());
      bytes += size;
    }
    return batch;
  }

  private void settle(List<TaskResult> batch, JsonObject answer) {
    ResultReply reply = ResultReply.fromJson(answer);
    Set<String> applied = new HashSet<>(reply.applied());
    Set<String> refused = new HashSet<>(reply.refused());
    int nApplied = 0;
    int nRefused = 0;
    for (TaskResult r : batch) {
      held.remove(r.key());
      outstanding.decrementAndGet();
      if (applied.contains(r.taskId())) {
        nApplied++;
      } else if (refused.contains(r.taskId())) {
        nRefused++;
      } else {
        // The answer came, so the batch was committed; the server just did not list this one.
        LOG.warning(() -> "result batch answer did not mention task " + r.taskId() + "; dropping it");
      }
    }
    stats.applied(nApplied);
    stats.refused(nRefused);
    if (nRefused > 0) { // normal for a result that came after its attempt was rescued; otherwise worth seeing
      int n = nRefused;
      LOG.info(() -> "the scheduler refused " + n + " result(s): not this executor's attempt any more");
    }
  }

  private void requeue(List<TaskResult> batch, Throwable cause) {
    // INFO, not FINE: around a leader change this says why results arrive late (and it is rare otherwise)
    LOG.log(Level.INFO, "result batch of " + batch.size() + " not answered, keeping it: " + cause.getMessage());
    for (int i = batch.size() - 1; i >= 0; i--) {
      pending.addFirst(batch.get(i));
    }
  }
}
