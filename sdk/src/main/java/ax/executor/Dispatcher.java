package ax.executor;

import ax.protocol.Ack;
import ax.protocol.Dispatch;
import ax.protocol.DispatchedTask;
import ax.protocol.ProtocolException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.HashMap;
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
 *   <li>A copy of an attempt older than one already dispatched here is rejected and not run: the
 *       scheduler replaced that attempt (it was refused for room, or its ack was late), so running it
 *       would run the task twice (e.g. a refused attempt 1, attempt 2 running, then a late copy of
 *       attempt 1's dispatch that finds room; CI's double-delivery test once saw tasks run twice).</li>
 *   <li>A newer attempt of a task whose earlier attempt is still running here is accepted and adopted
 *       by that run: the scheduler gave the earlier one up (a late ack), but it is going; when it ends
 *       its outcome is reported under every attempt that adopted it, and the handler ran once.</li>
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
  /** Per task and shard (attempt 0 in the key): the highest attempt dispatched here, run or refused. */
  private final DedupeWindow<Integer> latestAttempts;
  /** Per running task and shard (attempt 0 in the key): newer attempts waiting for its outcome. Guarded by itself. */
  private final Map<DedupeKey, List<TaskContext>> adopters = new HashMap<>();
  private final EpochFence epochs;
  private final ExecutionRecorder recorder;
  private final ExecutorStats stats;
  private final Consumer<TaskResult> results;
  private volatile boolean draining;

  Dispatcher(String executorId, Map<String, Registration> handlers, WorkerPools pools, Admission admission,
             DedupeWindow<TaskResult> dedupe, DedupeWindow<Integer> latestAttempts, EpochFence epochs,
             ExecutionRecorder recorder, ExecutorStats stats, Consumer<TaskResult> results) {
    this.executorId = executorId;
    this.handlers = Map.copyOf(handlers);
    this.pools = pools;
    this.admission = admission;
    this.dedupe = dedupe;
    this.latestAttempts = latestAttempts;
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
    int latest = latestAttempts.outcome(anyAttempt).orElse(0);
    if (ctx.attempt() < latest) {
      stats.deduplicated();
      LOG.fine(() -> "rejecting attempt " + ctx.attempt() + " of task " + ctx.taskId() + ": attempt " + latest
          + " was dispatched here already");
      return false;
    }
    if (ctx.attempt() > latest) {
      latestAttempts.complete(anyAttempt, ctx.attempt());
    }
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
    if (latest > 0 && latest < ctx.attempt() && adopt(ctx, new DedupeKey(ctx.taskId(), latest, ctx.shardIndex()))) {
      stats.deduplicated();
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
    DedupeKey anyAttempt = new DedupeKey(ctx.taskId(), 0, ctx.shardIndex());
    List<TaskContext> adopted;
    synchronized (adopters) {
      dedupe.complete(ctx.dedupeKey(), result);
      if (result.status() == TaskResult.Status.SUCCESS) {
        // Attempt 0 never occurs on the wire: it keys "this task and shard succeeded here" (R5).
        dedupe.tryStart(anyAttempt);
        dedupe.complete(anyAttempt, result);
      }
      adopted = adopters.remove(anyAttempt);
    }
    // Hand the results over before releasing the permit: drain waits for "nothing in flight and no
    // result outstanding", and must never see the gap between the two.
    results.accept(result);
    if (adopted != null) {
      for (TaskContext newer : adopted) {
        TaskResult again = new TaskResult(result.taskId(), newer.attempt(), result.shardIndex(), result.status(),
            result.result(), result.error(), result.durationMs(), newer.traceparent());
        dedupe.complete(newer.dedupeKey(), again);
        results.accept(again);
      }
    }
    admission.release();
  }

  /**
   * Lets {@code ctx} wait for the run of {@code earlier} if that run is still going; false if it is not
   * (never started here, or finished). The check and the enrolment happen under the lock the run's end
   * takes, so an adopter is never left behind by a run that ended in between.
   */
  private boolean adopt(TaskContext ctx, DedupeKey earlier) {
    synchronized (adopters) {
      if (!dedupe.contains(earlier) || dedupe.outcome(earlier).isPresent()) {
        return false;
      }
      dedupe.tryStart(ctx.dedupeKey());
      adopters.computeIfAbsent(new DedupeKey(ctx.taskId(), 0, ctx.shardIndex()), k -> new ArrayList<>()).add(ctx);
      LOG.fine(() -> "attempt " + ctx.attempt() + " of task " + ctx.taskId() + " adopts the running attempt "
          + earlier.attempt());
      return true;
    }
  }

  private static long elapsedMs(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }
}
