package ax.verticles;

import ax.bus.Addresses;
import ax.bus.LocalCodec;
import ax.bus.ReadyBatch;
import ax.bus.TaskBatch;
import ax.clock.AtDbTime;
import ax.clock.DbClock;
import ax.delivery.DispatchCommand;
import ax.delivery.DispatchObserver;
import ax.delivery.DispatchSettings;
import ax.delivery.ExecutorDispatch;
import ax.delivery.Reply;
import ax.delivery.ReportedOutcome;
import ax.fleet.ExecutorRegistry;
import ax.fleet.ExecutorSelector;
import ax.fleet.ExecutorSession;
import ax.leader.LeaderTerm;
import ax.logging.ThrottledWarning;
import ax.metrics.AxMetrics;
import ax.protocol.Ack;
import ax.protocol.Dispatch;
import ax.protocol.DispatchedTask;
import ax.protocol.Drain;
import ax.protocol.ExecutorAddresses;
import ax.protocol.Heartbeat;
import ax.protocol.HeartbeatReply;
import ax.protocol.PoolRule;
import ax.protocol.ProtocolException;
import ax.protocol.RegisterReply;
import ax.protocol.Registration;
import ax.protocol.ResultBatch;
import ax.protocol.ResultReply;
import ax.protocol.TaskOutcome;
import ax.store.ExecutionStore;
import ax.store.FencedOut;
import ax.task.OutcomePolicy;
import ax.task.OutcomeTally;
import ax.task.ReadyTask;
import ax.task.Settled;
import ax.tracing.AxTracing;
import ax.wheel.ScheduledTask;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.vertx.core.Future;
import io.vertx.core.tracing.TracingPolicy;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import ax.json.JsonText;
import ax.json.StoredJson;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs the leader's {@link ExecutorDispatch} (docs/executor-protocol.md, R6): while this node leads it
 * consumes the executor addresses cluster-wide (so an executor connected to any node's bridge reaches
 * it), turns each message into an event for the dispatch, and carries out the commands it returns —
 * database writes through {@link ExecutionStore}, pushes to executor inboxes, timers, answers. Every
 * answer that comes back goes through {@link #inTerm}, so nothing of an ended term is carried on.
 * Decisions live in the dispatch; this class only does I/O. One event loop, no locks.
 *
 * <p>Tracing (when on): each pushed task gets an {@code ax.dispatch} producer span under its claim span,
 * ended by the executor's ack, and travels with that span's traceparent; a reported outcome that names a
 * traceparent gets an {@code ax.result} span under it, ended when the answer (after the write) goes back.
 * Tracing off, a task carries the traceparent its submitter sent, if any, as it came.
 */
public final class ExecutorVerticle extends TermBoundVerticle {
  private static final Logger LOG = Logger.getLogger(ExecutorVerticle.class.getName());
  // Outcome writes, dispatch writes and READY loads all fail while the database is down (each executor's
  // results, every top-up): one line per 10 s for each kind, so no kind hides another and each count is its own.
  private final ThrottledWarning outcomeWriteFailures = new ThrottledWarning(LOG);
  private final ThrottledWarning readyLoadFailures = new ThrottledWarning(LOG);
  private final ThrottledWarning dispatchWriteFailures = new ThrottledWarning(LOG);
  /**
   * An ack timeout firing this much after its deadline means this node was not running at the deadline,
   * and the ack may be sitting unread behind the timeout (replies arrive through another event loop); a
   * busy loop fires timers tens of milliseconds late, a pause seconds late.
   */
  private static final long ACK_TIMEOUT_LATE_MS = 250;

  private final ExecutionStore store;
  private final DbClock clock;
  private final AxMetrics metrics;
  private final DispatchSettings settings;
  private final ExecutorDispatch dispatch;

  private final Map<Long, Message<Object>> requests = new HashMap<>();
  private final Map<Long, Message<Object>> syncWaiters = new HashMap<>();
  /** When each dispatch's write started and how long it took, for ax_dispatch_latency and the batch meters. */
  private final Map<Long, long[]> dispatchTimes = new HashMap<>();
  /** Set by a graceful stop: nothing more is handed to executors (READY tasks wait for the next leader). */
  private boolean handOversClosed;
  private final List<MessageConsumer<?>> termConsumers = new ArrayList<>();
  private long tickTimer = -1;
  private long nextRequestId = 1;
  private final AxTracing tracing;
  /** Open {@code ax.result} spans by the held result request they belong to (tracing only). */
  private final Map<Long, List<Span>> resultSpans = new HashMap<>();

  public ExecutorVerticle(ExecutionStore store, DbClock clock, AxMetrics metrics, DispatchSettings settings,
                          OutcomePolicy outcomes, Function<String, ExecutorSelector> selectors) {
    this(store, clock, metrics, settings, outcomes, selectors, AxTracing.OFF);
  }

  public ExecutorVerticle(ExecutionStore store, DbClock clock, AxMetrics metrics, DispatchSettings settings,
                          OutcomePolicy outcomes, Function<String, ExecutorSelector> selectors, AxTracing tracing) {
    this.tracing = tracing;
    this.store = store;
    this.clock = clock;
    this.metrics = metrics;
    this.settings = settings;
    this.dispatch = new ExecutorDispatch(settings, outcomes, selectors, new Observer(metrics));
  }

  @Override
  protected Future<?> startRole() {
    vertx.eventBus().<ReadyBatch>localConsumer(Addresses.EXEC_READY, msg -> run(dispatch.ready(msg.body().tasks())));
    vertx.eventBus().<Object>localConsumer(Addresses.EXEC_CLOSE_HAND_OVERS, msg -> {
      handOversClosed = true;
      long deadline = System.nanoTime() + (settings.ackTimeoutMs() + 1_000) * 1_000_000L;
      answerWhenHandedOver(msg, deadline);
    });
    metrics.gaugeReadyQueue(dispatch::readyQueueSize);
    return Future.succeededFuture();
  }

  @Override
  protected void onTermStarted(LeaderTerm term) {
    run(dispatch.startTerm(term.epoch(), clock.nowMillis()));
    var bus = vertx.eventBus();
    termConsumers.add(bus.consumer(ExecutorAddresses.REGISTER, this::onRegister));
    termConsumers.add(bus.consumer(ExecutorAddresses.HEARTBEAT, this::onHeartbeat));
    termConsumers.add(bus.consumer(ExecutorAddresses.RESULT, this::onResult));
    termConsumers.add(bus.consumer(ExecutorAddresses.DRAIN, this::onDrain));
    termConsumers.add(bus.consumer(Addresses.SYNC_AWAIT, this::onSyncAwait));
    termConsumers.add(bus.<Object>consumer(Addresses.EXEC_STATS, msg -> msg.reply(stats())));
    tickTimer = vertx.setPeriodic(settings.tickMs(), id -> {
      run(dispatch.tick(clock.nowMillis()));
      metrics.recordExecutors(dispatch.census());
    });
  }

  @Override
  protected void onTermEnded(LeaderTerm ended) {
    run(dispatch.endTerm());
    termConsumers.forEach(MessageConsumer::unregister);
    termConsumers.clear();
    vertx.cancelTimer(tickTimer);
    requests.values().forEach(m -> m.fail(503, "leader changed; send again"));
    requests.clear();
    resultSpans.values().forEach(spans -> spans.forEach(s -> AxTracing.end(s, "leader term ended")));
    resultSpans.clear();
    dispatchTimes.clear();
    metrics.recordExecutors(ExecutorRegistry.Census.NONE);
    LOG.info("standby: executor registry dropped; executors register again with the next leader");
  }

  // ---- executor messages → events

  private static String executorOf(Message<?> msg) {
    return msg.headers().get(ExecutorAddresses.EXECUTOR_HEADER);
  }

  private long hold(Message<Object> msg) {
    long id = nextRequestId++;
    requests.put(id, msg);
    return id;
  }

  private void onRegister(Message<Object> msg) {
    Registration r;
    try {
      r = Registration.fromJson(msg.body());
    } catch (ProtocolException e) {
      msg.fail(400, e.getMessage());
      return;
    }
    run(dispatch.register(hold(msg), executorOf(msg), new ExecutorRegistry.Registration(r.executorId(),
        new HashSet<>(r.processors()), r.capacity(), r.buffer(), r.zone()), clock.nowMillis()));
  }

  private void onHeartbeat(Message<Object> msg) {
    Heartbeat h;
    try {
      h = Heartbeat.fromJson(msg.body());
    } catch (ProtocolException e) {
      msg.fail(400, e.getMessage());
      return;
    }
    run(dispatch.heartbeat(hold(msg), executorOf(msg), h.session(), new ExecutorRegistry.Load(h.freeThreads(),
        h.backlog(), h.cpuLoad(), h.executed(), h.failed(), h.meanDurationMs()), clock.nowMillis()));
  }

  private void onDrain(Message<Object> msg) {
    Drain d;
    try {
      d = Drain.fromJson(msg.body());
    } catch (ProtocolException e) {
      msg.fail(400, e.getMessage());
      return;
    }
    run(dispatch.drain(hold(msg), executorOf(msg), d.session(), d.done()));
  }

  private void onResult(Message<Object> msg) {
    ResultBatch.Received batch;
    try {
      batch = ResultBatch.fromJson(msg.body());
    } catch (ProtocolException e) {
      msg.fail(400, e.getMessage());
      return;
    }
    List<ReportedOutcome> reported = new ArrayList<>(batch.results().size());
    List<String> malformed = new ArrayList<>(batch.malformed());
    for (TaskOutcome o : batch.results()) {
      try {
        reported.add(reported(o));
      } catch (NumberFormatException e) {
        malformed.add(o.taskId());
      }
    }
    long requestId = hold(msg);
    if (tracing.on()) {
      startResultSpans(requestId, executorOf(msg), batch.results());
    }
    run(dispatch.results(requestId, executorOf(msg), reported, malformed, clock.nowMillis()));
  }

  private void startResultSpans(long requestId, String executorId, List<TaskOutcome> outcomes) {
    List<Span> spans = new ArrayList<>();
    for (TaskOutcome o : outcomes) {
      if (o.traceparent() != null) {
        Span span = tracing.start(AxTracing.RESULT, SpanKind.CONSUMER, o.traceparent(), 0);
        span.setAttribute(AxTracing.TASK_ID, o.taskId());
        span.setAttribute(AxTracing.ATTEMPT, o.attempt());
        span.setAttribute(AxTracing.EXECUTOR, String.valueOf(executorId));
        span.setAttribute(AxTracing.OUTCOME, o.success() ? TaskOutcome.SUCCESS : TaskOutcome.FAILED);
        spans.add(span);
      }
    }
    if (!spans.isEmpty()) {
      resultSpans.put(requestId, spans);
    }
  }

  /** The protocol's outcome as the dispatch takes it: a numeric id, the result as bounded JSON text. */
  private static ReportedOutcome reported(TaskOutcome o) {
    long id = Long.parseLong(o.taskId());
    if (!o.success()) {
      return new ReportedOutcome(id, o.attempt(), false, null, o.error());
    }
    String json;
    try {
      // what the store cannot hold (a NUL, nesting past StoredJson.MAX_DEPTH) is kept as a JSON string
      json = o.result() == null ? null : StoredJson.storable(JsonText.encode(o.result()));
    } catch (RuntimeException cannotEncode) { // nested deeper than the encoder goes
      return new ReportedOutcome(id, o.attempt(), false, null, "result nested too deep to store");
    }
    if (json != null && json.length() > TaskOutcome.MAX_RESULT_BYTES) {
      return new ReportedOutcome(id, o.attempt(), false, null, "result larger than 64 KiB");
    }
    return new ReportedOutcome(id, o.attempt(), true, json, null);
  }

  /**
   * Body {@code {"task_id","trigger_ms","priority","timeout_ms"}}: the API inserted the task and waits
   * here until its outcome is recorded or {@code timeout_ms} passes.
   */
  private void onSyncAwait(Message<Object> msg) {
    JsonObject body;
    ScheduledTask task;
    try {
      body = msg.body() instanceof JsonObject o ? o : new JsonObject(String.valueOf(msg.body()));
      task = new ScheduledTask(Long.parseLong(body.getString("task_id")), body.getLong("trigger_ms"),
          body.getInteger("priority", 5));
    } catch (RuntimeException e) {
      msg.fail(400, "sync: task_id, trigger_ms and priority are required");
      return;
    }
    long waiterId = nextRequestId++;
    syncWaiters.put(waiterId, msg);
    vertx.setTimer(Math.max(1, body.getLong("timeout_ms", 3_000L)), id -> {
      if (leading()) {
        run(dispatch.syncExpired(waiterId));
      }
    });
    run(dispatch.syncAwait(waiterId, task));
  }

  // ---- commands → I/O

  private void run(List<DispatchCommand> commands) {
    for (DispatchCommand c : commands) {
      try {
        execute(c);
      } catch (RuntimeException e) {
        LOG.log(Level.SEVERE, "executor dispatch: carrying out " + c.getClass().getSimpleName() + " failed", e);
      }
    }
  }

  private void execute(DispatchCommand command) {
    if (command instanceof DispatchCommand.Answer a) {
      answer(a.requestId(), a.reply());
    } else if (command instanceof DispatchCommand.WriteDispatch w) {
      writeDispatch(w);
    } else if (command instanceof DispatchCommand.Push p) {
      pushAt(p, term());
    } else if (command instanceof DispatchCommand.WriteAcks w) {
      store.acked(w.attempts(), w.executorId(), term().fence()).onFailure(e -> LOG.log(Level.WARNING,
          "ack write failed; the tasks stay DISPATCHING until their results arrive", e));
    } else if (command instanceof DispatchCommand.ArmAckFlush a) {
      LeaderTerm t = term();
      vertx.setTimer(Math.max(1, a.delayMs()), id -> {
        if (stillIn(t)) {
          run(dispatch.ackFlushDue());
        }
      });
    } else if (command instanceof DispatchCommand.Release r) {
      release(r);
    } else if (command instanceof DispatchCommand.LookUpAttempts l) {
      lookUp(l);
    } else if (command instanceof DispatchCommand.Complete c) {
      complete(c);
    } else if (command instanceof DispatchCommand.SettleParents s) {
      settleParents(store.settleParents(s.parentIds(), term().fence()));
    } else if (command instanceof DispatchCommand.SweepStaleParents) {
      settleParents(store.staleParents().compose(ids -> store.settleParents(ids, term().fence())));
    } else if (command instanceof DispatchCommand.ToWheel w) {
      vertx.eventBus().send(Addresses.WHEEL_SCHEDULE, new TaskBatch(w.tasks()), LocalCodec.localOnly());
    } else if (command instanceof DispatchCommand.LoadReady l) {
      loadReady(l);
    } else if (command instanceof DispatchCommand.LoadHeld l) {
      loadHeld(l);
    } else if (command instanceof DispatchCommand.AnswerSync a) {
      answerSync(a.waiterIds(), a.outcome());
    } else if (command instanceof DispatchCommand.FailSync f) {
      for (long id : f.waiterIds()) {
        Message<Object> m = syncWaiters.remove(id);
        if (m != null) {
          m.fail(f.code(), f.message());
        }
      }
    } else {
      throw new IllegalStateException("unknown command " + command);
    }
  }

  private void answer(long requestId, Reply reply) {
    List<Span> spans = resultSpans.isEmpty() ? null : resultSpans.remove(requestId);
    if (spans != null) {
      String error = reply instanceof Reply.Refused r ? r.code() + " " + r.message() : null;
      spans.forEach(span -> AxTracing.end(span, error));
    }
    Message<Object> msg = requests.remove(requestId);
    if (msg == null) {
      return;
    }
    if (reply instanceof Reply.Registered r) {
      msg.reply(new RegisterReply(r.executorId(), r.session(), ExecutorAddresses.inbox(r.executorId()),
          r.heartbeatMs(), r.ackTimeoutMs(), r.epoch()).toJson());
    } else if (reply instanceof Reply.Alive a) {
      msg.reply(new HeartbeatReply(a.state(), a.epoch()).toJson());
    } else if (reply instanceof Reply.DrainState d) {
      msg.reply(Drain.reply(d.status()));
    } else if (reply instanceof Reply.ResultsRecorded r) {
      msg.reply(new ResultReply(r.applied(), r.refused()).toJson());
    } else if (reply instanceof Reply.Refused r) {
      msg.fail(r.code(), r.message());
    }
  }

  private void release(DispatchCommand.Release r) {
    store.release(r.attempts(), r.executorId(), term().fence()).onComplete(inTerm(ar -> {
      if (ar.failed()) {
        LOG.log(Level.WARNING, "releasing " + r.attempts().size() + " refused tasks failed; recovery rescues them at "
            + "their deadline", ar.cause());
        run(dispatch.releaseFailed(r.releaseId()));
      } else {
        run(dispatch.released(r.releaseId(), ar.result()));
      }
    }));
  }

  private void lookUp(DispatchCommand.LookUpAttempts l) {
    store.retryState(l.taskIds(), l.executorId()).onComplete(inTerm(ar -> {
      if (ar.failed()) {
        LOG.log(Level.WARNING, "reading the retry state of " + l.taskIds().length + " results failed", ar.cause());
        run(dispatch.attemptsLookupFailed(l.requestId()));
      } else {
        run(dispatch.attemptsLookedUp(l.requestId(), ar.result()));
      }
    }));
  }

  private void complete(DispatchCommand.Complete c) {
    store.complete(c.batch(), c.executorId(), term().fence()).onComplete(inTerm(ar -> {
      if (ar.failed()) {
        if (ar.cause() instanceof FencedOut) { // answered 503: the executor keeps them for the next leader
          LOG.warning(c.batch().size() + " outcomes of " + c.executorId() + " not written: " + ar.cause().getMessage());
        } else {
          outcomeWriteFailures.log("writing " + c.batch().size() + " outcomes of " + c.executorId() + " failed",
              ar.cause());
        }
        run(dispatch.completeFailed(c.completionId()));
      } else {
        run(dispatch.completed(c.completionId(), ar.result()));
      }
    }));
  }

  private void loadReady(DispatchCommand.LoadReady l) {
    store.loadReady(l.limit(), l.processors()).onComplete(inTerm(ar -> {
      if (ar.failed()) {
        readyLoadFailures.log("loading READY tasks failed; retrying at the next top-up", ar.cause());
        run(dispatch.topUpFailed());
      } else {
        run(dispatch.toppedUp(ar.result()));
      }
    }));
  }

  /**
   * Answers the graceful stop once every hand-over in flight was acked or refused (their outcomes are the
   * dispatch's to record), or at the deadline; then the term can end without leaving a task with an
   * executor that the next leader does not know was handed over.
   */
  private void answerWhenHandedOver(Message<Object> msg, long deadlineNanos) {
    int inFlight = leading() ? dispatch.dispatchesInFlight() : 0; // a standby has handed nothing over
    if (inFlight == 0 || System.nanoTime() - deadlineNanos > 0) {
      if (inFlight > 0) {
        LOG.warning(inFlight + " executor hand-overs still unanswered at the stop; the next leader's ack "
            + "timeout covers them");
      }
      msg.reply(inFlight);
      return;
    }
    vertx.setTimer(20, id -> answerWhenHandedOver(msg, deadlineNanos));
  }

  private void writeDispatch(DispatchCommand.WriteDispatch w) {
    if (handOversClosed) { // stopping: the tasks stay READY in PostgreSQL for the next leader
      run(dispatch.dispatchWriteFailed(w.dispatchId()));
      return;
    }
    long started = System.nanoTime();
    store.dispatch(w.taskIds(), w.executorId(), settings.ackTimeoutMs(), settings.claimLeadMs(), term().fence())
        .onComplete(inTerm(ar -> {
          if (ar.failed()) {
            dispatchWriteFailures.log("dispatch write for " + w.taskIds().length + " tasks failed; they stay due",
                ar.cause());
            run(dispatch.dispatchWriteFailed(w.dispatchId()));
            return;
          }
          long[] times = {started, System.nanoTime() - started};
          List<DispatchCommand> commands = dispatch.dispatchWritten(w.dispatchId(), ar.result());
          for (DispatchCommand c : commands) {
            if (c instanceof DispatchCommand.Push p) {
              dispatchTimes.put(p.dispatchId(), times);
            }
          }
          run(commands);
        }));
  }

  /**
   * Pushes at the tasks' trigger time on the {@link DbClock} (which never leads the database), never
   * before: they were written as soon as they were claimed, ahead of it. A push held past the end of its
   * term is dropped with the term's dispatch state; its tasks stay DISPATCHING in PostgreSQL until their
   * deadline, and the next leader's recovery hands them out again. A graceful stop still pushes what it
   * holds (within the claim lead): the stop waits for every hand-over in flight.
   */
  private void pushAt(DispatchCommand.Push p, LeaderTerm t) {
    long[] times = dispatchTimes.get(p.dispatchId());
    long writeStarted = times == null ? System.nanoTime() : times[0];
    AtDbTime.run(vertx, clock, p.notBeforeMs(), writeStarted, () -> stillIn(t), dispatchStarted -> {
      long[] now = dispatchTimes.get(p.dispatchId());
      if (now != null && now[0] != dispatchStarted) { // held: the dispatch latency starts at the release
        dispatchTimes.put(p.dispatchId(), new long[] {dispatchStarted, now[1]});
      }
      push(p);
    });
  }

  private void push(DispatchCommand.Push p) {
    List<DispatchedTask> tasks = new ArrayList<>(p.tasks().size());
    Span[] spans = tracing.on() ? new Span[p.tasks().size()] : null;
    for (int i = 0; i < p.tasks().size(); i++) {
      ReadyTask t = p.tasks().get(i);
      String traceparent = t.traceparent(); // tracing off: the submitter's own, passed on as it came
      String tracestate = null;
      if (spans != null) {
        spans[i] = dispatchSpan(t, p.attempts().get(i), p.executorId());
        Map<String, String> headers = AxTracing.outgoing(spans[i], null);
        traceparent = headers.get("traceparent");
        tracestate = headers.get("tracestate");
      }
      tasks.add(new DispatchedTask(Long.toString(t.taskId()), p.attempts().get(i), t.processor(), t.taskType(),
          JsonText.parseOrText(t.payloadJson()), t.priority(),
          PoolRule.forTask(t.priority(), t.timeoutMs()), t.timeoutMs(), t.triggerTimeMs(), t.shardIndex(),
          t.shardTotal(), traceparent, tracestate));
    }
    long pushedAt = System.nanoTime();
    // The trace context is in each task; the event bus adds none of its own to what executors receive.
    vertx.eventBus().request(ExecutorAddresses.inbox(p.executorId()), new Dispatch(p.epoch(), tasks).toJson(),
        new DeliveryOptions().setSendTimeout(settings.ackTimeoutMs()).setTracingPolicy(TracingPolicy.IGNORE))
        .onComplete(inTerm(ar -> {
          if (spans != null) {
            endDispatchSpans(p, spans, ar.succeeded() ? null : ar.cause().getMessage(),
                ar.succeeded() ? ar.result().body() : null);
          }
          long[] times = dispatchTimes.remove(p.dispatchId());
          if (ar.failed()) {
            boolean timedOut = ar.cause() instanceof ReplyException r && r.failureType() == ReplyFailure.TIMEOUT;
            long timeoutLateMs = (System.nanoTime() - pushedAt) / 1_000_000 - settings.ackTimeoutMs();
            if (timedOut && timeoutLateMs > ACK_TIMEOUT_LATE_MS) {
              LOG.warning("executor " + p.executorId() + ": the ack timeout of a dispatch of " + tasks.size()
                  + " tasks fired " + timeoutLateMs + " ms late (this node was not running); its ack may be "
                  + "unread, so the tasks stay with the executor until its results or their deadline");
              metrics.recordExecutorEvent("ack_unread_after_pause");
              run(dispatch.pushAckUnread(p.dispatchId()));
              return;
            }
            LOG.warning("executor " + p.executorId() + " did not ack " + tasks.size() + " tasks: "
                + ar.cause().getMessage() + "; they go back to READY");
            metrics.recordNotHandedOver(AxMetrics.Target.EXECUTOR,
                timedOut ? AxMetrics.HandOver.ACK_TIMEOUT : AxMetrics.HandOver.FAILED, tasks.size());
            run(dispatch.pushUnanswered(p.dispatchId()));
            return;
          }
          Set<Long> accepted = new HashSet<>();
          try {
            for (String id : Ack.fromJson(ar.result().body()).accepted()) {
              accepted.add(Long.parseLong(id));
            }
          } catch (IllegalArgumentException e) {
            LOG.warning("executor " + p.executorId() + " sent a malformed ack (" + e.getMessage()
                + "); its tasks go back to READY");
            accepted.clear();
            metrics.recordNotHandedOver(AxMetrics.Target.EXECUTOR, AxMetrics.HandOver.FAILED, tasks.size());
            run(dispatch.pushAnswered(p.dispatchId(), accepted));
            return;
          }
          recordAcked(p, accepted, times);
          run(dispatch.pushAnswered(p.dispatchId(), accepted));
        }));
  }

  private Span dispatchSpan(ReadyTask t, int attempt, String executorId) {
    Span span = tracing.start(AxTracing.DISPATCH, SpanKind.PRODUCER, t.traceparent(), 0);
    span.setAttribute(AxTracing.TASK_ID, Long.toString(t.taskId()));
    span.setAttribute(AxTracing.TASK_TYPE, t.taskType());
    span.setAttribute(AxTracing.ATTEMPT, attempt);
    span.setAttribute(AxTracing.EXECUTOR, executorId);
    span.setAttribute("ax.processor", t.processor());
    return span;
  }

  /** Ends a push's dispatch spans: accepted, rejected, or no (valid) ack. */
  private static void endDispatchSpans(DispatchCommand.Push p, Span[] spans, String failure, Object ack) {
    Set<String> accepted = new HashSet<>();
    if (failure == null) {
      try {
        accepted.addAll(Ack.fromJson(ack).accepted());
      } catch (IllegalArgumentException e) {
        failure = "malformed ack";
      }
    }
    for (int i = 0; i < spans.length; i++) {
      boolean took = accepted.contains(Long.toString(p.tasks().get(i).taskId()));
      spans[i].setAttribute("ax.accepted", took);
      AxTracing.end(spans[i], failure != null ? "no ack: " + failure : took ? null : "rejected by the executor");
    }
  }

  /** The executor answered a push: each task it took is handed over now; the others it refused. */
  private void recordAcked(DispatchCommand.Push p, Set<Long> accepted, long[] times) {
    long nowNanos = System.nanoTime();
    long nowMs = clock.nowMillis();
    int taken = 0;
    for (ReadyTask t : p.tasks()) {
      if (accepted.contains(t.taskId())) {
        taken++;
        metrics.recordHandedOver(AxMetrics.Target.EXECUTOR, nowMs - t.dueMs(),
            times == null ? 0 : nowNanos - times[0]);
      }
    }
    if (taken < p.tasks().size()) {
      metrics.recordNotHandedOver(AxMetrics.Target.EXECUTOR, AxMetrics.HandOver.REJECTED, p.tasks().size() - taken);
    }
    if (times != null) {
      metrics.recordExecutorBatch(p.tasks().size(), nowNanos - times[0], times[1]);
    }
  }

  private void settleParents(Future<List<Settled>> settling) {
    settling.onComplete(inTerm(ar -> {
      if (ar.failed()) {
        LOG.log(Level.FINE, "updating sharded parents failed; the periodic sweep retries", ar.cause());
      } else {
        run(dispatch.parentsSettled(ar.result()));
      }
    }));
  }

  private void loadHeld(DispatchCommand.LoadHeld l) {
    if (l.delayMs() <= 0) {
      readHeld(l);
      return;
    }
    LeaderTerm t = term();
    vertx.setTimer(l.delayMs(), id -> {
      if (stillIn(t)) {
        readHeld(l);
      }
    });
  }

  private void readHeld(DispatchCommand.LoadHeld l) {
    store.heldBy(l.executorId(), l.limit()).onComplete(inTerm(ar -> {
      if (ar.failed()) {
        LOG.log(Level.WARNING, "reading the tasks of OFFLINE executor " + l.executorId() + " failed; retrying",
            ar.cause());
        run(dispatch.heldLoadFailed(l.executorId()));
      } else {
        run(dispatch.heldLoaded(l.executorId(), ar.result(), clock.nowMillis()));
      }
    }));
  }

  private void answerSync(List<Long> waiterIds, Settled s) {
    // the result as stored text: the API turns it into JSON without losing a digit (JsonText)
    JsonObject answer = new JsonObject().put("task_id", Long.toString(s.taskId())).put("status", s.status().name())
        .put("result_json", s.resultJson()).put("error", s.error());
    for (long id : waiterIds) {
      Message<Object> m = syncWaiters.remove(id);
      if (m != null) {
        m.reply(answer);
      }
    }
  }

  private JsonObject stats() {
    JsonObject o = new JsonObject().put("leader", leading());
    if (leading()) {
      long now = clock.nowMillis();
      JsonArray executors = new JsonArray();
      for (ExecutorSession s : dispatch.sessions()) {
        executors.add(describe(s, dispatch.outstandingOf(s.executorId()), now));
      }
      o.put("executors", executors).put("ready_queue", dispatch.readyQueueSize())
          .put("in_flight", dispatch.handedOver());
    }
    return o;
  }

  /** For /health: what the executor reported and what the leader counts. */
  private static JsonObject describe(ExecutorSession s, int outstanding, long nowMs) {
    return new JsonObject()
        .put("executor_id", s.executorId()).put("session", s.session()).put("state", s.state().name())
        .put("zone", s.zone()).put("processors", new JsonArray(s.processors().stream().sorted().toList()))
        .put("threads", s.threads()).put("buffer", s.buffer()).put("outstanding", outstanding)
        .put("free_threads", s.reportedFreeThreads()).put("backlog", s.reportedBacklog()).put("cpu_load", s.cpuLoad())
        .put("executed", s.executed()).put("failed", s.failed()).put("mean_duration_ms", s.meanDurationMs())
        .put("last_heartbeat_ms_ago", nowMs - s.lastHeartbeatMs());
  }

  /** Metrics and the log lines an operator reads, for the dispatch's decisions. */
  private record Observer(AxMetrics metrics) implements DispatchObserver {
    @Override
    public void executorEvent(String executorId, String event) {
      metrics.recordExecutorEvent(event);
      switch (event) {
        case "suspect" -> LOG.warning("executor " + executorId + " missed " + ExecutorRegistry.SUSPECT_AFTER_MISSED
            + " heartbeats: SUSPECT, no new work");
        case "offline" -> LOG.warning("executor " + executorId + " missed " + ExecutorRegistry.OFFLINE_AFTER_MISSED
            + " heartbeats: OFFLINE; its tasks go through the retry policy");
        default -> LOG.info("executor " + executorId + " " + event);
      }
    }

    @Override
    public void refused(String kind, int count) {
      metrics.recordExecutorRefused(kind, count);
    }

    @Override
    public void outcomes(OutcomeTally tally) {
      metrics.recordOutcomes(AxMetrics.Target.EXECUTOR, tally);
    }

    @Override
    public void retriesScheduled(int count) {
      metrics.recordRetriesScheduled(count);
    }

    @Override
    public void dispatchUnanswered(String executorId, int tasks) {
      metrics.recordExecutorEvent("dispatch_unanswered");
    }

    @Override
    public void offlineSettled(String executorId, int tasks) {
      LOG.info("executor " + executorId + ": " + tasks + " held tasks handed to the retry policy");
    }

    @Override
    public void roomGivenBack(int tasks) {
      metrics.recordExecutorEvent("room_given_back");
      LOG.warning(tasks + " tasks handed to live executors were never answered for by their deadline; their room "
          + "is given back and the recovery scan times them out");
    }

    @Override
    public void notWatching(long gapMs) {
      metrics.recordExecutorEvent("health_check_paused");
      LOG.warning("this node did not check executors' heartbeats for " + gapMs + " ms (a pause or a starved "
          + "process): missed heartbeats are counted from now, not over that time");
    }
  }
}
