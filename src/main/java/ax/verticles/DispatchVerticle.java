package ax.verticles;

import ax.api.auth.ApiKeyCache;
import ax.bus.Addresses;
import ax.bus.LocalCodec;
import ax.bus.ReadyBatch;
import ax.bus.TaskBatch;
import ax.clock.AtDbTime;
import ax.clock.DbClock;
import ax.dispatch.ClaimGate;
import ax.dispatch.ClaimQueue;
import ax.dispatch.CompletionWriter;
import ax.dispatch.DispatchLoad;
import ax.dispatch.OutcomeBacklog;
import ax.http.HttpTargetInvoker;
import ax.leader.LeaderTerm;
import ax.logging.ThrottledWarning;
import ax.metrics.AxMetrics;
import ax.store.ScheduleStore;
import ax.store.ScheduleStore.Claimed;
import ax.task.Completion;
import ax.task.HttpTask;
import ax.task.OutcomePolicy;
import ax.task.OutcomeTally;
import ax.task.ReadyTask;
import ax.task.Settled;
import ax.tracing.AxTracing;
import ax.wheel.ScheduledTask;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Turns due tasks into executions. Batches from the wheel are claimed with one fenced statement
 * ({@link ScheduleStore#claimDue}) each, or several together when they queued behind the claims in
 * flight ({@link ClaimQueue}); nothing runs before its claim has committed. Claimed HTTP targets
 * are called through {@link HttpTargetInvoker}; their outcomes go through {@link OutcomePolicy} and are
 * written in batches by {@link CompletionWriter} — fenced by attempt, so what a call returned is kept
 * and written even if this node loses the lease or the database meanwhile ({@link OutcomeBacklog}).
 * Retries return to the wheel. Claimed processor tasks go to {@link ExecutorVerticle} at once, a claim's
 * together: it writes them DISPATCHING in one statement ahead of time and pushes each at its trigger time.
 *
 * <p>Claimed ahead: the wheel sends tasks {@code claimLeadMs} before their trigger time, the claim takes
 * those due within the lead on the database's clock, and each claimed task is released from memory at
 * its trigger time on the {@link DbClock} (which never leads the database), so nothing starts early and
 * the claim's round trip is not part of the lateness. A claimed task is this node's from the claim on:
 * it is owed in the {@link OutcomeBacklog} at once (recovery leaves it alone, a graceful stop waits for
 * it), and released even if the term ends meanwhile, like a call already in flight; if the node dies
 * first, recovery fires it again after its run deadline, which counts from the trigger time.
 *
 * <p>Tasks of a batch the claim skipped are either someone else's now (cancelled, already running) or
 * not due yet on the database clock; the latter go back to the wheel.
 *
 * <p>Tracing (when {@link AxTracing#on()}): each claimed task gets an {@code ax.claim} span under its
 * submission's trace, its HTTP call an {@code ax.http_call} client span under that (whose traceparent the
 * receiver gets), and its outcome an {@code ax.result} span from the call's end to the committed write.
 * Processor tasks leave with the claim span's traceparent for the executor dispatch.
 */
public final class DispatchVerticle extends TermBoundVerticle {
  private static final Logger LOG = Logger.getLogger(DispatchVerticle.class.getName());
  /** Every batch's claim fails while the database is down: one line per 10 s. */
  private final ThrottledWarning claimFailures = new ThrottledWarning(LOG);

  /**
   * @param claimBatch          outcomes per write (claims come in the wheel's batches)
   * @param maxConcurrentClaims claim statements in flight per dispatcher
   * @param claimRetryDelayMs   how soon a batch whose claim failed goes back to the wheel
   * @param completionLingerMs  how long an outcome may wait for others to share its write
   * @param claimLeadMs         how far ahead of their trigger time tasks are claimed (the wheel sends them
   *                            that early); each is released at its trigger time
   */
  public record Settings(int claimBatch, int maxConcurrentClaims, long claimRetryDelayMs, long completionLingerMs,
                         long claimLeadMs) {
    public Settings {
      if (claimBatch < 1 || maxConcurrentClaims < 1 || claimRetryDelayMs < 1 || completionLingerMs < 0
          || claimLeadMs < 0) {
        throw new IllegalArgumentException("dispatch settings out of range: " + this);
      }
    }

    public static Settings of(int claimBatch, long completionLingerMs, long claimLeadMs) {
      return new Settings(claimBatch, 4, 1_000, completionLingerMs, claimLeadMs);
    }
  }

  private final ScheduleStore store;
  private final DbClock clock;
  private final HttpTargetInvoker invoker;
  private final ApiKeyCache keys;
  private final OutcomePolicy outcomes;
  private final OutcomeBacklog backlog;
  private final AxMetrics metrics;
  private final Settings settings;
  private final AxTracing tracing;

  /** Open {@code ax.result} spans by task id, ended when the outcome is written (tracing only; bounded). */
  private final Map<Long, Span> resultSpans = new HashMap<>();
  private static final int MAX_OPEN_RESULT_SPANS = 100_000;

  private final ClaimQueue queue;
  private final ClaimGate gate;
  private final DispatchLoad load;
  private int claimsInFlight;
  private CompletionWriter writer;

  public DispatchVerticle(ScheduleStore store, DbClock clock, HttpTargetInvoker invoker, ApiKeyCache keys,
                          OutcomePolicy outcomes, OutcomeBacklog backlog, AxMetrics metrics, Settings settings) {
    this(store, clock, invoker, keys, outcomes, backlog, metrics, settings, AxTracing.OFF);
  }

  public DispatchVerticle(ScheduleStore store, DbClock clock, HttpTargetInvoker invoker, ApiKeyCache keys,
                          OutcomePolicy outcomes, OutcomeBacklog backlog, AxMetrics metrics, Settings settings,
                          AxTracing tracing) {
    this(store, clock, invoker, keys, outcomes, backlog, metrics, settings, tracing, new ClaimGate(),
        new DispatchLoad(backlog));
  }

  /**
   * @param gate shared by the node's dispatchers; its graceful stop closes it before resigning the lease
   * @param load shared by the node's dispatchers (over {@code backlog}): what webhook delivery yields to
   */
  public DispatchVerticle(ScheduleStore store, DbClock clock, HttpTargetInvoker invoker, ApiKeyCache keys,
                          OutcomePolicy outcomes, OutcomeBacklog backlog, AxMetrics metrics, Settings settings,
                          AxTracing tracing, ClaimGate gate, DispatchLoad load) {
    this.gate = gate;
    this.load = load;
    this.tracing = tracing;
    this.store = store;
    this.clock = clock;
    this.invoker = invoker;
    this.keys = keys;
    this.outcomes = outcomes;
    this.backlog = backlog;
    this.metrics = metrics;
    this.settings = settings;
    this.queue = new ClaimQueue(settings.claimBatch(), load::awaitingClaim);
  }

  @Override
  protected Future<?> startRole() {
    writer = new CompletionWriter(vertx, store::completeCalls, backlog, settings.claimBatch(),
        settings.completionLingerMs(), new CompletionWriter.Listener() {
          @Override
          public void written(List<Completion> batch, List<Settled> applied) {
            onWritten(batch, applied);
          }

          @Override
          public void dropped(int count, String why) {
            metrics.recordOutcomesDropped(count);
            LOG.warning(count + " outcomes dropped: " + why + "; recovery fires their tasks again after their deadline");
          }
        });
    vertx.eventBus().<TaskBatch>localConsumer(Addresses.DISPATCH_DUE, msg -> {
      if (leading()) {
        queue.add(msg.body().tasks());
        pump();
      }
    });
    // a stopping leader's last claims, for what falls due while a successor takes over (AxNode.stop)
    vertx.eventBus().<TaskBatch>localConsumer(Addresses.DISPATCH_HAND_OVER, msg -> {
      if (!leading() || !gate.tryStart()) {
        msg.reply(null);
        return;
      }
      claim(msg.body().tasks(), Long.parseLong(msg.headers().get(Addresses.LEAD_MS_HEADER)), () -> msg.reply(null));
    });
    return Future.succeededFuture();
  }

  @Override
  protected void onTermStarted(LeaderTerm term) {
    claimsInFlight = 0;
  }

  @Override
  protected void onTermEnded(LeaderTerm ended) {
    queue.clear(); // still DELAYED/READY in PostgreSQL: the next leader loads them
  }

  private void pump() {
    while (claimsInFlight < settings.maxConcurrentClaims() && !queue.isEmpty()) {
      if (!gate.tryStart()) {
        queue.clear(); // the node is stopping: still DELAYED in PostgreSQL, the successor fires them
        return;
      }
      // what queued while the claims in flight ran goes in one statement
      claim(queue.next(), settings.claimLeadMs(), () -> { });
    }
  }

  /**
   * Sends one claim statement for tasks due within {@code leadMs}; the caller has counted it in the
   * gate, which hears of its answer; {@code answered} runs after the answer was handled.
   */
  private void claim(List<ScheduledTask> batch, long leadMs, Runnable answered) {
    long[] ids = batch.stream().mapToLong(ScheduledTask::taskId).toArray();
    long started = System.nanoTime();
    claimsInFlight++;
    load.awaitingClaim(ids.length);
    Handler<AsyncResult<Claimed>> handle = inTerm(ar -> {
      claimsInFlight--;
      if (ar.succeeded()) {
        onClaimed(ids, ar.result(), started);
      } else {
        claimFailures.log("claiming " + ids.length + " due tasks failed; back to the wheel in "
            + settings.claimRetryDelayMs() + " ms", ar.cause());
        vertx.setTimer(settings.claimRetryDelayMs(), id -> backToWheel(batch));
      }
      pump();
    });
    store.claimDue(ids, term().fence(), leadMs).onComplete(ar -> {
      handle.handle(ar);
      load.awaitingClaim(-ids.length); // after: what it claimed went to the backlog (or back to the wheel)
      gate.finished(); // after: what it claimed is counted in the backlog before a stop may resign
      answered.run();
    });
  }

  /**
   * @param claimStarted {@code System.nanoTime()} when the claim statement was sent: the start of the
   *                     {@code ax_dispatch_latency} of each HTTP task that was due by then
   */
  private void onClaimed(long[] ids, Claimed claimed, long claimStarted) {
    metrics.recordClaim(claimed.size(), System.nanoTime() - claimStarted);
    Set<Long> claimedIds = new HashSet<>(claimed.size() * 2);
    long claimStartEpochNanos = tracing.on() ? AxTracing.epochNanosAgo(System.nanoTime() - claimStarted) : 0;
    Map<Long, List<LongConsumer>> releases = new TreeMap<>();
    for (HttpTask t : claimed.http()) {
      claimedIds.add(t.taskId());
      backlog.callStarted(t.taskId());
      String claimTraceparent = tracing.on()
          ? claimSpan(t.taskId(), t.taskType(), t.traceparent(), claimStartEpochNanos) : null;
      releases.computeIfAbsent(t.dueMs(), k -> new ArrayList<>()).add(dispatchStarted -> execute(t,
          dispatchStarted, claimTraceparent));
    }
    // processor tasks are measured when an executor acks them (ExecutorVerticle)
    if (!claimed.ready().isEmpty()) {
      List<ReadyTask> ready = claimed.ready();
      if (tracing.on()) {
        ready = new ArrayList<>(ready.size());
        for (ReadyTask t : claimed.ready()) {
          ready.add(t.withTraceparent(claimSpan(t.taskId(), t.taskType(), t.traceparent(), claimStartEpochNanos)));
        }
      }
      // To the executor dispatch now, all together: it writes them DISPATCHING in one statement and pushes
      // each at its trigger time. Only what a graceful stop's hand-over claimed further ahead waits here.
      long sendBy = clock.nowMillis() + settings.claimLeadMs();
      List<ReadyTask> now = new ArrayList<>(ready.size());
      Map<Long, List<ReadyTask>> later = new TreeMap<>();
      for (ReadyTask t : ready) {
        claimedIds.add(t.taskId());
        (t.dueMs() <= sendBy ? now : later.computeIfAbsent(t.dueMs(), k -> new ArrayList<>())).add(t);
      }
      if (!now.isEmpty()) {
        toExecutors(now);
      }
      later.forEach((dueMs, tasks) -> AtDbTime.run(vertx, clock, dueMs - settings.claimLeadMs(), claimStarted,
          started -> toExecutors(tasks)));
    }
    releases.forEach((dueMs, actions) -> AtDbTime.run(vertx, clock, dueMs, claimStarted,
        dispatchStarted -> actions.forEach(a -> a.accept(dispatchStarted))));
    if (claimedIds.size() < ids.length) {
      long[] skipped = Arrays.stream(ids).filter(id -> !claimedIds.contains(id)).toArray();
      store.notYetDue(skipped)
          .onSuccess(this::backToWheel)
          .onFailure(e -> LOG.log(Level.WARNING, "checking " + skipped.length + " unclaimed tasks failed; "
              + "the loader or recovery scan will find them", e));
    }
  }

  private void toExecutors(List<ReadyTask> tasks) {
    vertx.eventBus().send(Addresses.EXEC_READY, new ReadyBatch(tasks), LocalCodec.localOnly());
  }

  /**
   * Calls the target and hands the outcome to the writer — whatever happens to the term meanwhile. The
   * hand-over (request written) is measured when it happens; a call never sent counts as a failed (or
   * timed-out) dispatch.
   */
  private void execute(HttpTask t, long dispatchStarted, String claimTraceparent) {
    Runnable sent = () -> metrics.recordHandedOver(AxMetrics.Target.HTTP, clock.nowMillis() - t.dueMs(),
        System.nanoTime() - dispatchStarted);
    Span call = null;
    if (tracing.on()) {
      call = tracing.start(AxTracing.HTTP_CALL, SpanKind.CLIENT, claimTraceparent, 0);
      call.setAttribute(AxTracing.TASK_ID, Long.toString(t.taskId()));
      call.setAttribute(AxTracing.ATTEMPT, t.attempt());
      call.setAttribute("http.request.method", "POST");
      call.setAttribute("url.full", t.callbackUrl());
    }
    Span callSpan = call;
    // tracing off, the caller's own traceparent (if it sent one) is passed on as it came
    Map<String, String> traceHeaders = AxTracing.outgoing(call, t.traceparent());
    keys.find(t.apiKey())
        .compose(key -> key.isPresent()
            ? invoker.invoke(t, key.get().secret(), clock.nowMillis(), sent, traceHeaders)
            : Future.succeededFuture(HttpTargetInvoker.Outcome.notSent(
                "the access key that submitted this task no longer exists; cannot sign the call")))
        .onComplete(ar -> {
          HttpTargetInvoker.Outcome o = ar.succeeded() ? ar.result()
              : HttpTargetInvoker.Outcome.notSent("internal error: " + ar.cause());
          if (!o.sent()) {
            metrics.recordNotHandedOver(AxMetrics.Target.HTTP,
                o.timedOut() ? AxMetrics.HandOver.ACK_TIMEOUT : AxMetrics.HandOver.FAILED, 1);
          }
          Completion c = o.success() ? outcomes.succeeded(t.taskId(), t.attempt(), t.retryCount(), o.resultJson())
              : outcomes.failed(t.taskId(), t.attempt(), t.retryCount(), t.maxRetry(), o.error(), o.timedOut(),
                  clock.nowMillis());
          if (callSpan != null) {
            AxTracing.end(callSpan, o.success() ? null : o.error());
            startResultSpan(t, callSpan);
          }
          writer.add(c);
        });
  }

  /** A claim span per task: backdated to when the claim statement was sent, ended now (it has committed). */
  private String claimSpan(long taskId, String taskType, String submitTraceparent, long startEpochNanos) {
    Span claim = tracing.start(AxTracing.CLAIM, SpanKind.INTERNAL, submitTraceparent, startEpochNanos);
    claim.setAttribute(AxTracing.TASK_ID, Long.toString(taskId));
    claim.setAttribute(AxTracing.TASK_TYPE, taskType);
    claim.end();
    return AxTracing.traceparent(claim);
  }

  private void startResultSpan(HttpTask t, Span call) {
    if (resultSpans.size() >= MAX_OPEN_RESULT_SPANS) {
      resultSpans.clear(); // outcomes dropped without a write never end theirs: do not hold them forever
    }
    Span result = tracing.start(AxTracing.RESULT, SpanKind.INTERNAL, AxTracing.traceparent(call), 0);
    result.setAttribute(AxTracing.TASK_ID, Long.toString(t.taskId()));
    Span previous = resultSpans.put(t.taskId(), result);
    if (previous != null) {
      previous.end();
    }
  }

  private void endResultSpans(List<Completion> batch, List<Settled> applied) {
    Set<Long> appliedIds = new HashSet<>(applied.size() * 2);
    applied.forEach(a -> appliedIds.add(a.taskId()));
    for (Completion c : batch) {
      Span span = resultSpans.remove(c.taskId());
      if (span != null) {
        span.setAttribute(AxTracing.OUTCOME, appliedIds.contains(c.taskId()) ? c.outcome().name() : "refused");
        span.end();
      }
    }
  }

  private void onWritten(List<Completion> batch, List<Settled> applied) {
    if (tracing.on()) {
      endResultSpans(batch, applied);
    }
    metrics.recordOutcomes(AxMetrics.Target.HTTP, OutcomeTally.of(batch, applied));
    int requested = batch.size();
    if (applied.size() < requested) {
      metrics.recordLateResults(requested - applied.size());
      LOG.warning((requested - applied.size()) + " outcomes refused: those tasks had moved on to another attempt "
          + "(re-fired by recovery)");
    }
    List<ScheduledTask> retries = Settled.retriesOf(applied);
    metrics.recordRetriesScheduled(retries.size());
    // Only the leader's wheel takes them; a standby's retries are found by the next leader's loader.
    backToWheel(retries);
  }

  private void backToWheel(List<ScheduledTask> tasks) {
    if (!tasks.isEmpty()) {
      vertx.eventBus().send(Addresses.WHEEL_SCHEDULE, new TaskBatch(tasks), LocalCodec.localOnly());
    }
  }
}
