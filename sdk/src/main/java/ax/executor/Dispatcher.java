package ax.executor;

import ax.protocol.Ack;
import ax.protocol.Dispatch;
import ax.protocol.DispatchedTask;
import ax.protocol.ProtocolException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Decides, task by task, what happens to a dispatch, and runs what it accepts.
 *
 * <ol>
 *   <li>A dispatch older than the highest epoch seen is rejected whole ({@code stale_epoch}).</li>
 *   <li>A task already in the {@link DedupeWindow} is accepted but not run; its outcome, if known, is
 *       re-sent.</li>
 *   <li>A task (and shard) that already <em>succeeded</em> here within the window under an earlier
 *       attempt is accepted but not run either (R5): its result is sent again under the new attempt.
 *       That closes the one window the scheduler cannot: an ack that arrived too late, after the task
 *       had been handed out again.</li>
 *   <li>Otherwise it is accepted if a permit is free ({@link Admission}), else rejected; while draining
 *       everything new is rejected.</li>
 * </ol>
 * {@link #onDispatch} runs on the event loop and only decides and enqueues, so the ack goes out at once;
 * handlers run on the {@link WorkerPools}. Outcomes go to {@code results} from whichever thread produced
 * them.
 */
final class Dispatcher {
  private static final Logger LOG = Logger.getLogger(Dispatcher.class.getName());

  /** A handler and the pool it was pinned to (null: route by the dispatch). */
  record Registration(TaskHandler handler, Pool pool) {
  }

  private final String executorId;
  private final Map<String, Registration> handlers;
  private final WorkerPools pools;
  private final Admission admission;
  private final DedupeWindow<TaskResult> dedupe;
  private final EpochFence epochs;
  private final ExecutionRecorder recorder;
  private final ExecutorStats stats;
  private final Consumer<TaskResult> results;
  private volatile boolean draining;

  Dispatcher(String executorId, Map<String, Registration> handlers, WorkerPools pools, Admission admission,
             DedupeWindow<TaskResult> dedupe, EpochFence epochs, ExecutionRecorder recorder, ExecutorStats stats,
             Consumer<TaskResult> results) {
    this.executorId = executorId;
    this.handlers = Map.copyOf(handlers);
    this.pools = pools;
    this.admission = admission;
    this.dedupe = dedupe;
    this.epochs = epochs;
    this.recorder = recorder;
    this.stats = stats;
    this.results = results;
  }

  /** From now on every new task is rejected (repeats of known ones are still accepted). */
  void startDraining() {
    draining = true;
  }

  /** Tasks acked and not finished yet (running or waiting for a thread). */
  int inflight() {
    return admission.inflight();
  }

  /** The heartbeat's {@code backlog}: acked tasks waiting for a worker. */
  int backlog() {
    return Math.max(0, admission.inflight() - pools.running());
  }

  /** Handles one dispatch body and returns the ack to reply with. */
  JsonObject onDispatch(JsonObject dispatch) {
    JsonArray tasks = Dispatch.rawTasks(dispatch);
    List<String> accepted = new ArrayList<>(tasks.size());
    List<String> rejected = new ArrayList<>();
    Long epoch = Dispatch.epochOf(dispatch);
    if (epoch != null && !epochs.admit(epoch)) {
      for (Object task : tasks) {
        String id = DispatchedTask.idOf(task);
        if (id != null) {
          rejected.add(id);
        }
      }
      stats.rejected(rejected.size());
      LOG.info(() -> "rejected a dispatch of epoch " + epoch + " (highest seen " + epochs.highest() + ")");
      return new Ack(accepted, rejected, Ack.STALE_EPOCH).toJson();
    }
    for (Object raw : tasks) {
      String id = DispatchedTask.idOf(raw);
      if (id == null) {
        LOG.warning(() -> "ignoring a dispatched task without task_id: " + raw);
        continue;
      }
      if (raw instanceof JsonObject task && decide(task)) {
        accepted.add(id);
      } else {
        rejected.add(id);
      }
    }
    stats.rejected(rejected.size());
    return new Ack(accepted, rejected, null).toJson();
  }

  /** True = accepted. */
  private boolean decide(JsonObject raw) {
    TaskContext ctx;
    try {
      ctx = TaskContext.of(DispatchedTask.fromJson(raw), executorId);
    } catch (ProtocolException e) {
      LOG.warning("rejecting a malformed task: " + e.getMessage());
      return false;
    }
    DedupeKey key = ctx.dedupeKey();
    DedupeKey anyAttempt = new DedupeKey(ctx.taskId(), 0, ctx.shardIndex());
    java.util.Optional<TaskResult> succeeded = dedupe.outcome(anyAttempt);
    if (succeeded.isPresent() && !dedupe.contains(key)) {
      stats.deduplicated();
      TaskResult earlier = succeeded.get();
      TaskResult again = new TaskResult(earlier.taskId(), ctx.attempt(), earlier.shardIndex(), earlier.status(),
          earlier.result(), earlier.error(), earlier.durationMs(), ctx.traceparent());
      dedupe.tryStart(key);
      dedupe.complete(key, again);
      results.accept(again);
      return true;
    }
    if (dedupe.contains(key)) {
      stats.deduplicated();
      // Finished: send the outcome again (the first report may be what got lost). Still running: the
      // first run will report.
      dedupe.outcome(key).ifPresent(results);
      return true;
    }
    if (draining || !admission.tryAcquire()) {
      return false;
    }
    dedupe.tryStart(key);
    Registration reg = handlers.get(ctx.processor());
    if (reg == null) {
      // The scheduler only sends processors we registered; this is a misconfiguration, report it loudly.
      TaskResult failed = TaskResult.failure(ctx, "no handler for processor '" + ctx.processor() + "' on executor "
          + executorId, 0);
      dedupe.complete(key, failed);
      results.accept(failed);
      admission.release();
      return true;
    }
    Pool pool = Pool.route(reg.pool(), ctx.pool(), ctx.priority(), ctx.timeoutMs());
    try {
      pools.submit(pool, () -> run(reg.handler(), ctx));
    } catch (RuntimeException e) { // pools shut down: only after close()
      admission.release();
      LOG.log(Level.WARNING, "cannot queue task " + ctx.taskId(), e);
      return false;
    }
    return true;
  }

  private void run(TaskHandler handler, TaskContext ctx) {
    long start = System.nanoTime();
    TaskResult result;
    try {
      recorder.started(ctx);
      Object value = handler.handle(ctx);
      result = TaskResult.success(ctx, value, elapsedMs(start));
    } catch (Throwable e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      String message = e.getMessage() != null ? e.getMessage() : e.getClass().getName();
      LOG.log(Level.FINE, "task " + ctx.taskId() + " attempt " + ctx.attempt() + " failed", e);
      result = TaskResult.failure(ctx, message, elapsedMs(start));
    }
    stats.executed(result);
    dedupe.complete(ctx.dedupeKey(), result);
    if (result.status() == TaskResult.Status.SUCCESS) {
      // Attempt 0 never occurs on the wire: it keys "this task and shard succeeded here" (R5).
      DedupeKey anyAttempt = new DedupeKey(ctx.taskId(), 0, ctx.shardIndex());
      dedupe.tryStart(anyAttempt);
      dedupe.complete(anyAttempt, result);
    }
    // Hand the result over before releasing the permit: drain waits for "nothing in flight and no
    // result outstanding", and must never see the gap between the two.
    results.accept(result);
    admission.release();
  }

  private static long elapsedMs(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }
}
