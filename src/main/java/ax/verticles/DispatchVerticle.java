package ax.verticles;

import ax.api.auth.ApiKeyCache;
import ax.bus.Addresses;
import ax.bus.LeaderTerm;
import ax.bus.LocalCodec;
import ax.bus.TaskBatch;
import ax.clock.DbClock;
import ax.delivery.ReadyBatch;
import ax.delivery.ReadyTask;
import ax.dispatch.ClaimedTask;
import ax.dispatch.Completion;
import ax.dispatch.CompletionWriter;
import ax.dispatch.OutcomePolicy;
import ax.http.HttpTargetInvoker;
import ax.metrics.AxMetrics;
import ax.store.ScheduleStore;
import ax.store.ScheduleStore.Applied;
import ax.store.ScheduleStore.Claimed;
import ax.store.ScheduleStore.Fence;
import ax.wheel.ScheduledTask;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Turns due tasks into executions. For each batch from the wheel: one fenced claim
 * ({@link ScheduleStore#claimDue}); nothing runs before that claim has committed. Claimed HTTP targets
 * are called through {@link HttpTargetInvoker}; their outcomes go through {@link OutcomePolicy} and
 * are written in batches by {@link CompletionWriter}. Retries return to the wheel. Claimed processor
 * tasks are READY and go to {@link ExecutorVerticle}, which hands them to remote executors.
 *
 * <p>Tasks of a batch the claim skipped are either someone else's now (cancelled, already running) or
 * not due yet on the database clock; the latter go back to the wheel.
 */
public final class DispatchVerticle extends VerticleBase {
  private static final Logger LOG = Logger.getLogger(DispatchVerticle.class.getName());
  private static final int MAX_CONCURRENT_CLAIMS = 4;
  private static final long CLAIM_RETRY_DELAY_MS = 1_000;
  private static final long COMPLETION_LINGER_MS = 5;

  private final ScheduleStore store;
  private final DbClock clock;
  private final HttpTargetInvoker invoker;
  private final ApiKeyCache keys;
  private final OutcomePolicy outcomes;
  private final AxMetrics metrics;
  private final String nodeId;
  private final int batchSize;
  private final long leaseTtlMs;

  private final ArrayDeque<List<ScheduledTask>> queue = new ArrayDeque<>();
  private LeaderTerm term;
  private int claimsInFlight;
  private CompletionWriter writer;

  public DispatchVerticle(ScheduleStore store, DbClock clock, HttpTargetInvoker invoker, ApiKeyCache keys,
                          OutcomePolicy outcomes, AxMetrics metrics, String nodeId, int batchSize, long leaseTtlMs) {
    this.leaseTtlMs = leaseTtlMs;
    this.store = store;
    this.clock = clock;
    this.invoker = invoker;
    this.keys = keys;
    this.outcomes = outcomes;
    this.metrics = metrics;
    this.nodeId = nodeId;
    this.batchSize = batchSize;
  }

  @Override
  public Future<?> start() {
    writer = new CompletionWriter(vertx, store, batchSize, COMPLETION_LINGER_MS, this::fence, 2 * leaseTtlMs,
        this::onApplied);
    var bus = vertx.eventBus();
    bus.<LeaderTerm>localConsumer(Addresses.LEADER_CHANGED, msg -> {
      term = msg.body();
      if (!term.leader()) {
        queue.clear(); // still DELAYED/READY in PostgreSQL: the next leader loads them
      }
    });
    bus.<TaskBatch>localConsumer(Addresses.DISPATCH_DUE, msg -> {
      if (term != null && term.leader()) {
        queue.add(msg.body().tasks());
        pump();
      }
    });
    return Future.succeededFuture();
  }

  private void pump() {
    while (claimsInFlight < MAX_CONCURRENT_CLAIMS && !queue.isEmpty()) {
      claim(queue.poll());
    }
  }

  private void claim(List<ScheduledTask> batch) {
    long[] ids = batch.stream().mapToLong(ScheduledTask::taskId).toArray();
    Fence fence = fence();
    long started = System.nanoTime();
    claimsInFlight++;
    store.claimDue(ids, fence).onComplete(ar -> {
      claimsInFlight--;
      if (ar.succeeded()) {
        onClaimed(ids, ar.result(), System.nanoTime() - started);
      } else {
        LOG.log(Level.WARNING, "claiming " + ids.length + " due tasks failed; back to the wheel in "
            + CLAIM_RETRY_DELAY_MS + " ms", ar.cause());
        vertx.setTimer(CLAIM_RETRY_DELAY_MS, id -> backToWheel(batch));
      }
      pump();
    });
  }

  private Fence fence() {
    return term == null ? new Fence(LeaderVerticle.LEASE_NAME, "", 0, nodeId)
        : new Fence(LeaderVerticle.LEASE_NAME, term.holder(), term.epoch(), nodeId);
  }

  private void onClaimed(long[] ids, Claimed claimed, long claimNanos) {
    metrics.recordClaim(claimed.size(), claimNanos);
    long now = clock.nowMillis();
    Set<Long> claimedIds = new HashSet<>(claimed.size() * 2);
    for (ClaimedTask t : claimed.http()) {
      claimedIds.add(t.taskId());
      metrics.recordScheduleDelay(now - t.triggerTimeMs());
      execute(t);
    }
    if (!claimed.ready().isEmpty()) {
      for (ReadyTask t : claimed.ready()) {
        claimedIds.add(t.taskId());
        metrics.recordScheduleDelay(now - t.triggerTimeMs());
      }
      vertx.eventBus().send(Addresses.EXEC_READY, new ReadyBatch(claimed.ready()), LocalCodec.localOnly());
    }
    if (claimedIds.size() < ids.length) {
      long[] skipped = java.util.Arrays.stream(ids).filter(id -> !claimedIds.contains(id)).toArray();
      store.notYetDue(skipped)
          .onSuccess(this::backToWheel)
          .onFailure(e -> LOG.log(Level.WARNING, "checking " + skipped.length + " unclaimed tasks failed; "
              + "the loader or recovery scan will find them", e));
    }
  }

  private void execute(ClaimedTask t) {
    keys.find(t.apiKey())
        .compose(key -> key.isPresent()
            ? invoker.invoke(t, key.get().secret(), clock.nowMillis())
            : Future.succeededFuture(new HttpTargetInvoker.Outcome(false, null,
                "the access key that submitted this task no longer exists; cannot sign the call", false)))
        .onComplete(ar -> {
          HttpTargetInvoker.Outcome o = ar.succeeded() ? ar.result()
              : new HttpTargetInvoker.Outcome(false, null, "internal error: " + ar.cause(), false);
          Completion c;
          if (o.success()) {
            metrics.recordSuccess();
            c = outcomes.succeeded(t.taskId(), t.attempt(), t.retryCount(), o.resultJson());
          } else {
            metrics.recordFailure(o.timedOut());
            c = outcomes.failed(t.taskId(), t.attempt(), t.retryCount(), t.maxRetry(), o.error(), o.timedOut(),
                clock.nowMillis());
          }
          writer.add(c);
        });
  }

  private void onApplied(List<Applied> applied, int requested) {
    if (applied.size() < requested) {
      metrics.recordLateResults(requested - applied.size());
      LOG.warning((requested - applied.size()) + " outcomes refused: the tasks were no longer RUNNING in "
          + "that attempt (rescued by recovery)");
    }
    List<ScheduledTask> retries = Applied.retries(applied);
    retries.forEach(r -> metrics.recordRetryScheduled());
    backToWheel(retries);
  }

  private void backToWheel(List<ScheduledTask> tasks) {
    if (!tasks.isEmpty()) {
      vertx.eventBus().send(Addresses.WHEEL_SCHEDULE, new TaskBatch(tasks), LocalCodec.localOnly());
    }
  }
}
