package ax.verticles;

import ax.bridge.BridgeAuth;
import ax.bus.Addresses;
import ax.bus.LeaderTerm;
import ax.bus.LocalCodec;
import ax.bus.TaskBatch;
import ax.clock.DbClock;
import ax.delivery.DispatchPlanner;
import ax.delivery.ExecutorMessages;
import ax.delivery.ReadyBatch;
import ax.delivery.ReadyQueue;
import ax.delivery.ReadyTask;
import ax.dispatch.Completion;
import ax.dispatch.OutcomePolicy;
import ax.fleet.ExecutorRegistry;
import ax.fleet.ExecutorSelector;
import ax.fleet.ExecutorSession;
import ax.metrics.AxMetrics;
import ax.store.ExecutionStore;
import ax.store.ExecutionStore.Dispatched;
import ax.store.AttemptBudget;
import ax.store.ExecutionStore.Settled;
import ax.store.ScheduleStore.Fence;
import ax.wheel.ScheduledTask;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.Json;
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
 * The leader's side of remote executors (README.md "Executor protocol", R6). While this node leads it
 * <ul>
 *   <li>consumes the executor addresses cluster-wide (registrations, heartbeats, results, drains reach
 *       it through whichever node's bridge the executor uses) and keeps the {@link ExecutorRegistry};</li>
 *   <li>holds READY processor tasks in a {@link ReadyQueue} (from claims, and topped up from
 *       PostgreSQL after a takeover or when capacity frees) and pushes them the moment an executor has
 *       room: READY → DISPATCHING (fenced write) → inbox request → ack → RUNNING; rejected or unanswered
 *       → READY for the next round;</li>
 *   <li>writes results in batches, fenced by lease, executor and attempt, and sends retries to the
 *       wheel;</li>
 *   <li>declares silent executors SUSPECT, then OFFLINE, and hands what they held to the retry policy.</li>
 * </ul>
 * Everything runs on this verticle's event loop, so the registry and queue need no locks.
 */
public final class ExecutorVerticle extends VerticleBase {
  private static final Logger LOG = Logger.getLogger(ExecutorVerticle.class.getName());
  /** Tasks per dispatch message: large enough to amortise the round trip, small enough to spread. */
  private static final int MAX_BATCH = 256;
  private static final int MAX_DISPATCHES_IN_FLIGHT = 16;
  private static final int TOP_UP_BATCH = 5_000;
  private static final long TOP_UP_INTERVAL_MS = 1_000;
  private static final int HELD_SCAN_LIMIT = 100_000;
  private static final long OFFLINE_RETRY_MS = 1_000;
  /**
   * Acks are written after this linger, in one statement, and only for tasks whose result has not
   * arrived meanwhile: a fast task goes DISPATCHING → SUCCESS without a RUNNING write it would never
   * need (its deadline already covers ack + run, see ExecutionStore).
   */
  private static final long ACK_LINGER_MS = 50;

  /** A task handed to an executor by this leader: what its result needs to apply the retry policy. */
  private record InFlight(String executorId, int attempt, int retryCount, int maxRetry) {
  }

  private final ExecutionStore store;
  private final OutcomePolicy outcomes;
  private final DbClock clock;
  private final AxMetrics metrics;
  private final String nodeId;
  private final long heartbeatMs;
  private final long ackTimeoutMs;
  private final int readyQueueCap;
  private final Function<String, ExecutorSelector> selectors;

  private LeaderTerm term;
  private ExecutorRegistry registry;
  private ReadyQueue ready;
  private final Map<Long, InFlight> inFlight = new HashMap<>();
  /** Acked tasks whose RUNNING write is pending, by executor. */
  private final Map<String, Map<Long, Dispatched>> pendingAcks = new HashMap<>();
  private long ackTimer = -1;
  private final Map<Long, List<Message<Object>>> syncWaiters = new HashMap<>();
  private final List<MessageConsumer<?>> leaderConsumers = new ArrayList<>();
  private final List<Long> timers = new ArrayList<>();
  private int dispatchesInFlight;
  private boolean toppingUp;
  private boolean pumpScheduled;

  public ExecutorVerticle(ExecutionStore store, OutcomePolicy outcomes, DbClock clock, AxMetrics metrics, String nodeId,
                          long heartbeatMs, long ackTimeoutMs, int readyQueueCap,
                          Function<String, ExecutorSelector> selectors) {
    this.store = store;
    this.outcomes = outcomes;
    this.clock = clock;
    this.metrics = metrics;
    this.nodeId = nodeId;
    this.heartbeatMs = heartbeatMs;
    this.ackTimeoutMs = ackTimeoutMs;
    this.readyQueueCap = readyQueueCap;
    this.selectors = selectors;
  }

  @Override
  public Future<?> start() {
    var bus = vertx.eventBus();
    bus.<LeaderTerm>localConsumer(Addresses.LEADER_CHANGED, msg -> onTerm(msg.body()));
    bus.<ReadyBatch>localConsumer(Addresses.EXEC_READY, msg -> onReady(msg.body().tasks()));
    metrics.gaugeReadyQueue(() -> ready == null ? 0 : ready.size());
    return Future.succeededFuture();
  }

  private boolean leading() {
    return term != null && term.leader() && registry != null;
  }

  private long monoMs() {
    return clock.monoNanos() / 1_000_000;
  }

  private Fence fence() {
    return new Fence(LeaderVerticle.LEASE_NAME, term.holder(), term.epoch(), nodeId);
  }

  // ---- leadership

  private void onTerm(LeaderTerm next) {
    boolean was = leading();
    term = next;
    if (next.leader() && !was) {
      registry = new ExecutorRegistry(heartbeatMs);
      ready = new ReadyQueue(readyQueueCap);
      var bus = vertx.eventBus();
      leaderConsumers.add(bus.consumer(Addresses.EXEC_REGISTER, this::onRegister));
      leaderConsumers.add(bus.consumer(Addresses.EXEC_HEARTBEAT, this::onHeartbeat));
      leaderConsumers.add(bus.consumer(Addresses.EXEC_RESULT, this::onResult));
      leaderConsumers.add(bus.consumer(Addresses.EXEC_DRAIN, this::onDrain));
      leaderConsumers.add(bus.consumer(Addresses.SYNC_AWAIT, this::onSyncAwait));
      leaderConsumers.add(bus.<Object>consumer(Addresses.EXEC_STATS, msg -> msg.reply(stats())));
      timers.add(vertx.setPeriodic(Math.max(50, Math.min(heartbeatMs / 4, 1_000)), id -> sweep()));
      timers.add(vertx.setPeriodic(TOP_UP_INTERVAL_MS, id -> topUp()));
      topUp();
    } else if (!next.leader() && was) {
      pendingAcks.clear();
      leaderConsumers.forEach(MessageConsumer::unregister);
      leaderConsumers.clear();
      timers.forEach(vertx::cancelTimer);
      timers.clear();
      syncWaiters.values().forEach(ws -> ws.forEach(w -> w.fail(503, "leader changed; the task runs under the next leader")));
      syncWaiters.clear();
      registry = null;
      ready = null;
      inFlight.clear();
      LOG.info("standby: executor registry dropped; executors re-register with the next leader");
    }
  }

  // ---- executor messages

  private static String executorOf(Message<?> msg) {
    return msg.headers().get(BridgeAuth.EXECUTOR_HEADER);
  }

  private void onRegister(Message<Object> msg) {
    String executorId = executorOf(msg);
    try {
      JsonObject body = ExecutorMessages.parse(msg.body(), "register");
      if (executorId == null || !executorId.equals(body.getString("executor_id"))) {
        msg.fail(403, "register: executor_id must be the subject of your token");
        return;
      }
      ExecutorRegistry.Result<ExecutorSession> r = registry.register(ExecutorMessages.registration(executorId, body),
          monoMs());
      if (!r.ok()) {
        msg.fail(503, "register: the tasks of your previous session are being recovered; retry shortly");
        return;
      }
      ExecutorSession s = r.value();
      metrics.recordExecutorEvent("registered");
      LOG.info("executor " + executorId + " registered (session " + s.session() + ", processors " + s.processors()
          + ", capacity " + s.capacity() + ")");
      msg.reply(new JsonObject().put("executor_id", executorId).put("session", s.session())
          .put("inbox", Addresses.executorInbox(executorId)).put("heartbeat_ms", heartbeatMs)
          .put("ack_timeout_ms", ackTimeoutMs).put("epoch", term.epoch()));
    } catch (IllegalArgumentException e) {
      msg.fail(400, e.getMessage());
    }
  }

  private void onHeartbeat(Message<Object> msg) {
    String executorId = executorOf(msg);
    try {
      JsonObject body = ExecutorMessages.parse(msg.body(), "heartbeat");
      var s = registry.heartbeat(String.valueOf(executorId), body.getString("session", ""),
          ExecutorMessages.load(body), monoMs());
      if (s.isEmpty()) {
        metrics.recordExecutorRefused("heartbeat", 1);
        msg.fail(410, "unknown or OFFLINE session: register again");
        return;
      }
      msg.reply(new JsonObject().put("status", s.get().state().name()).put("epoch", term.epoch()));
      schedulePump();
    } catch (IllegalArgumentException e) {
      msg.fail(400, e.getMessage());
    }
  }

  private void onDrain(Message<Object> msg) {
    String executorId = String.valueOf(executorOf(msg));
    JsonObject body;
    try {
      body = ExecutorMessages.parse(msg.body(), "drain");
    } catch (IllegalArgumentException e) {
      msg.fail(400, e.getMessage());
      return;
    }
    String session = body.getString("session", "");
    if (body.getBoolean("done", false)) {
      registry.leave(executorId, session);
      metrics.recordExecutorEvent("left");
      msg.reply(new JsonObject().put("status", "GONE"));
    } else if (registry.drain(executorId, session)) {
      metrics.recordExecutorEvent("draining");
      msg.reply(new JsonObject().put("status", "DRAINING"));
    } else {
      msg.fail(410, "unknown or OFFLINE session");
    }
  }

  // ---- results

  private void onResult(Message<Object> msg) {
    String executorId = executorOf(msg);
    ExecutorMessages.Results parsed;
    try {
      parsed = ExecutorMessages.results(ExecutorMessages.parse(msg.body(), "result"));
    } catch (IllegalArgumentException e) {
      msg.fail(400, e.getMessage());
      return;
    }
    if (executorId == null) {
      msg.fail(403, "result: not from an authenticated executor");
      return;
    }
    List<ExecutorMessages.Result> known = new ArrayList<>();
    List<ExecutorMessages.Result> unknown = new ArrayList<>();
    Map<Long, Dispatched> acksOfThisExecutor = pendingAcks.get(executorId);
    for (ExecutorMessages.Result r : parsed.results()) {
      if (acksOfThisExecutor != null) {
        acksOfThisExecutor.remove(r.taskId()); // finished already: RUNNING would be stale
      }
      InFlight f = inFlight.get(r.taskId());
      if (f != null && f.executorId().equals(executorId) && f.attempt() == r.attempt()) {
        known.add(r);
      } else {
        unknown.add(r);
      }
    }
    lookUp(unknown, executorId)
        .compose(held -> apply(executorId, known, unknown, held))
        .onSuccess(applied -> {
          JsonArray appliedIds = new JsonArray();
          JsonArray refusedIds = new JsonArray(new ArrayList<>(parsed.malformed()));
          for (ExecutorMessages.Result r : parsed.results()) {
            (applied.contains(r.taskId()) ? appliedIds : refusedIds).add(Long.toString(r.taskId()));
          }
          if (!refusedIds.isEmpty()) {
            metrics.recordExecutorRefused("result", refusedIds.size());
          }
          msg.reply(new JsonObject().put("applied", appliedIds).put("refused", refusedIds));
        })
        .onFailure(e -> {
          LOG.log(Level.WARNING, "writing " + parsed.results().size() + " results of " + executorId + " failed", e);
          msg.fail(503, "results not recorded; send them again");
        });
  }

  /** Retry state from the database for results of tasks this leader did not dispatch. */
  private Future<Map<Long, AttemptBudget>> lookUp(List<ExecutorMessages.Result> unknown, String executorId) {
    if (unknown.isEmpty()) {
      return Future.succeededFuture(Map.of());
    }
    long[] ids = unknown.stream().mapToLong(ExecutorMessages.Result::taskId).toArray();
    return store.retryState(ids, executorId).map(rows -> {
      Map<Long, AttemptBudget> out = new HashMap<>();
      rows.forEach(h -> out.put(h.taskId(), h));
      return out;
    });
  }

  private Future<Set<Long>> apply(String executorId, List<ExecutorMessages.Result> known,
                                  List<ExecutorMessages.Result> unknown, Map<Long, AttemptBudget> held) {
    long now = clock.nowMillis();
    List<Completion> batch = new ArrayList<>(known.size() + unknown.size());
    int success = 0;
    for (ExecutorMessages.Result r : known) {
      InFlight f = inFlight.get(r.taskId());
      batch.add(completion(r, f.retryCount(), f.maxRetry(), now));
      success += r.success() ? 1 : 0;
    }
    for (ExecutorMessages.Result r : unknown) {
      AttemptBudget h = held.get(r.taskId());
      if (h != null && h.attempt() == r.attempt()) {
        batch.add(completion(r, h.retryCount(), h.maxRetry(), now));
        success += r.success() ? 1 : 0;
      }
    }
    if (batch.isEmpty()) {
      return Future.succeededFuture(Set.of());
    }
    int successes = success;
    return store.complete(batch, executorId, fence()).map(settled -> {
      Set<Long> applied = new HashSet<>();
      List<ScheduledTask> retries = new ArrayList<>();
      for (Settled s : settled) {
        applied.add(s.taskId());
        if ("DELAYED".equals(s.status())) {
          retries.add(new ScheduledTask(s.taskId(), s.triggerTimeMs(), s.priority()));
          metrics.recordRetryScheduled();
        }
        answerSyncWaiters(s);
      }
      // Whatever the outcome, these tasks are no longer out with this executor under this leader.
      for (Completion c : batch) {
        InFlight f = inFlight.get(c.taskId());
        if (f != null && f.executorId().equals(executorId) && f.attempt() == c.attempt()) {
          inFlight.remove(c.taskId());
          registry.find(executorId).ifPresent(x -> x.settled(1));
        }
      }
      metrics.recordExecutorOutcomes(successes, batch.size() - successes);
      toWheel(retries);
      settleParents(settled);
      schedulePump();
      return applied;
    });
  }

  /** Shards settled: bring their parents up to date (and answer anyone waiting on a parent). */
  private void settleParents(List<Settled> settled) {
    List<Long> parents = settled.stream().map(Settled::parentId).filter(java.util.Objects::nonNull).distinct().toList();
    if (parents.isEmpty()) {
      return;
    }
    store.settleParents(parents)
        .onSuccess(done -> done.forEach(this::answerSyncWaiters))
        .onFailure(e -> LOG.log(Level.WARNING, "updating " + parents.size() + " sharded parents failed; "
            + "the periodic sweep retries", e));
  }

  private Completion completion(ExecutorMessages.Result r, int retryCount, int maxRetry, long now) {
    return r.success()
        ? outcomes.succeeded(r.taskId(), r.attempt(), retryCount, r.resultJson())
        : outcomes.failed(r.taskId(), r.attempt(), retryCount, maxRetry, r.error(), false, now);
  }

  // ---- READY tasks → executors

  private void onReady(List<ReadyTask> tasks) {
    if (!leading()) {
      return; // READY in PostgreSQL: the next leader's top-up finds them
    }
    for (ReadyTask t : tasks) {
      ready.offer(t); // when full they stay READY in PostgreSQL and the top-up brings them later
    }
    schedulePump();
  }

  /** Coalesces many triggers (a burst of results or heartbeats) into one pass. */
  private void schedulePump() {
    if (!pumpScheduled) {
      pumpScheduled = true;
      vertx.runOnContext(v -> {
        pumpScheduled = false;
        pump();
      });
    }
  }

  private void pump() {
    if (!leading()) {
      return;
    }
    for (String processor : ready.processorsWaiting()) {
      while (dispatchesInFlight < MAX_DISPATCHES_IN_FLIGHT) {
        var candidates = registry.candidates(processor);
        int room = 0;
        for (var v : candidates) {
          room += v.available() ? v.freeThreads() : 0;
        }
        if (room == 0) {
          break; // backpressure: they wait READY until an executor reports room
        }
        List<ReadyTask> take = ready.poll(processor, Math.min(room, MAX_BATCH * 4));
        if (take.isEmpty()) {
          break;
        }
        DispatchPlanner.Plan plan = DispatchPlanner.plan(take, candidates, selectors);
        ready.putBack(plan.leftovers());
        if (plan.byExecutor().isEmpty()) {
          break;
        }
        plan.byExecutor().forEach((executorId, tasks) -> {
          for (int i = 0; i < tasks.size(); i += MAX_BATCH) {
            send(registry.find(executorId).orElseThrow(), tasks.subList(i, Math.min(tasks.size(), i + MAX_BATCH)));
          }
        });
      }
    }
  }

  private void send(ExecutorSession session, List<ReadyTask> tasks) {
    String executorId = session.executorId();
    long[] ids = tasks.stream().mapToLong(ReadyTask::taskId).toArray();
    long started = System.nanoTime();
    long epoch = term.epoch();
    session.handedOver(tasks.size());
    dispatchesInFlight++;
    store.dispatch(ids, executorId, ackTimeoutMs, fence()).onComplete(ar -> {
      if (!leading() || term.epoch() != epoch) {
        dispatchesInFlight--;
        return;
      }
      for (long id : ids) {
        ready.forget(id); // DISPATCHING now, or no longer READY (cancelled): either way not queued
      }
      if (ar.failed()) {
        dispatchesInFlight--;
        session.settled(tasks.size());
        LOG.log(Level.WARNING, "dispatch write for " + ids.length + " tasks failed; they stay READY", ar.cause());
        return; // still READY in PostgreSQL: the top-up brings them back
      }
      List<Dispatched> dispatched = ar.result();
      session.settled(tasks.size() - dispatched.size());
      if (dispatched.isEmpty()) {
        dispatchesInFlight--;
        schedulePump();
        return;
      }
      Map<Long, ReadyTask> byId = new HashMap<>();
      tasks.forEach(t -> byId.put(t.taskId(), t));
      List<ReadyTask> sent = new ArrayList<>(dispatched.size());
      List<Integer> attempts = new ArrayList<>(dispatched.size());
      for (Dispatched d : dispatched) {
        ReadyTask t = byId.get(d.taskId());
        sent.add(t);
        attempts.add(d.attempt());
        inFlight.put(d.taskId(), new InFlight(executorId, d.attempt(), t.retryCount(), t.maxRetry()));
      }
      push(session, sent, dispatched, attempts, epoch, started, System.nanoTime() - started);
    });
  }

  private void push(ExecutorSession session, List<ReadyTask> sent, List<Dispatched> dispatched, List<Integer> attempts,
                    long epoch, long started, long writeNanos) {
    String executorId = session.executorId();
    JsonObject body = ExecutorMessages.dispatch(epoch, sent, attempts);
    vertx.eventBus().request(Addresses.executorInbox(executorId), body,
        new DeliveryOptions().setSendTimeout(ackTimeoutMs)).onComplete(ar -> {
          dispatchesInFlight--;
          if (!leading() || term.epoch() != epoch) {
            return;
          }
          Set<Long> accepted;
          if (ar.succeeded()) {
            try {
              accepted = ExecutorMessages.ack(ar.result().body()).accepted();
            } catch (IllegalArgumentException e) {
              LOG.warning("executor " + executorId + " sent a malformed ack: " + e.getMessage());
              accepted = Set.of();
            }
            metrics.recordDispatch(dispatched.size(), System.nanoTime() - started, writeNanos);
          } else {
            LOG.warning("executor " + executorId + " did not ack " + dispatched.size() + " tasks: "
                + ar.cause().getMessage() + "; they go back to READY");
            session.markStalled();
            accepted = Set.of();
          }
          List<Dispatched> acked = new ArrayList<>();
          List<Dispatched> refused = new ArrayList<>();
          for (Dispatched d : dispatched) {
            (accepted.contains(d.taskId()) ? acked : refused).add(d);
          }
          if (!acked.isEmpty()) {
            Map<Long, Dispatched> pending = pendingAcks.computeIfAbsent(executorId, id -> new HashMap<>());
            acked.forEach(d -> pending.put(d.taskId(), d));
            if (ackTimer < 0) {
              ackTimer = vertx.setTimer(ACK_LINGER_MS, id -> flushAcks());
            }
          }
          if (!refused.isEmpty()) {
            release(session, refused, sent);
          }
          schedulePump();
        });
  }

  private void flushAcks() {
    ackTimer = -1;
    if (!leading()) {
      pendingAcks.clear();
      return;
    }
    pendingAcks.forEach((executorId, acks) -> {
      if (!acks.isEmpty()) {
        store.acked(List.copyOf(acks.values()), executorId, fence()).onFailure(e -> LOG.log(Level.WARNING,
            "ack write failed; the tasks stay DISPATCHING until their results arrive", e));
      }
    });
    pendingAcks.clear();
  }

  private void release(ExecutorSession session, List<Dispatched> refused, List<ReadyTask> sent) {
    for (Dispatched d : refused) {
      InFlight f = inFlight.get(d.taskId());
      if (f != null && f.attempt() == d.attempt()) {
        inFlight.remove(d.taskId());
      }
    }
    session.settled(refused.size());
    long epoch = term.epoch();
    store.release(refused, session.executorId(), fence()).onComplete(ar -> {
      if (!leading() || term.epoch() != epoch) {
        return;
      }
      if (ar.failed()) {
        LOG.log(Level.WARNING, "releasing " + refused.size() + " refused tasks failed; recovery rescues them", ar.cause());
        return;
      }
      Set<Long> released = new HashSet<>(ar.result());
      for (ReadyTask t : sent) {
        if (released.contains(t.taskId())) {
          ready.offer(t);
        }
      }
      schedulePump();
    });
  }

  /** Brings READY tasks left in PostgreSQL (takeover, backpressure, queue cap, rescues) into memory. */
  private void topUp() {
    if (leading()) {
      store.staleParents().compose(store::settleParents)
          .onFailure(e -> LOG.log(Level.FINE, "sharded parent sweep failed", e));
    }
    if (!leading() || toppingUp || ready.freeCapacity() == 0) {
      return;
    }
    // Only for processors some executor serves right now and that have nothing queued: queued tasks go
    // first anyway, whether they can leave now or wait for room (and so would whatever a top-up read).
    // Topping up processors that were merely waiting for room re-read 67 000 READY and due rows during
    // a 90 000-task burst run (pg_stat_statements).
    Set<String> toLoad = new HashSet<>(registry.servedProcessors());
    ready.processorsWaiting().forEach(toLoad::remove);
    if (toLoad.isEmpty()) {
      return;
    }
    toppingUp = true;
    long epoch = term.epoch();
    store.loadReady(Math.min(TOP_UP_BATCH, ready.freeCapacity()), toLoad).onComplete(ar -> {
      toppingUp = false;
      if (!leading() || term.epoch() != epoch) {
        return;
      }
      if (ar.failed()) {
        LOG.log(Level.WARNING, "loading READY tasks failed; retrying in " + TOP_UP_INTERVAL_MS + " ms", ar.cause());
        return;
      }
      onReady(ar.result());
    });
  }

  // ---- health

  private void sweep() {
    if (!leading()) {
      return;
    }
    ExecutorRegistry.Sweep s = registry.sweep(monoMs());
    for (ExecutorSession x : s.suspect()) {
      metrics.recordExecutorEvent("suspect");
      LOG.warning("executor " + x.executorId() + " missed " + ExecutorRegistry.SUSPECT_AFTER_MISSED
          + " heartbeats: SUSPECT, no new work");
    }
    for (ExecutorSession x : s.offline()) {
      metrics.recordExecutorEvent("offline");
      LOG.warning("executor " + x.executorId() + " missed " + ExecutorRegistry.OFFLINE_AFTER_MISSED
          + " heartbeats: OFFLINE; its tasks go through the retry policy");
      recoverHeldBy(x.executorId());
    }
  }

  /** Everything the OFFLINE executor held gets a new attempt (retry policy); then it may register again. */
  private void recoverHeldBy(String executorId) {
    long epoch = term.epoch();
    store.heldBy(executorId, HELD_SCAN_LIMIT).compose(held -> {
      if (held.isEmpty()) {
        return Future.succeededFuture(List.<Settled>of());
      }
      long now = clock.nowMillis();
      List<Completion> batch = new ArrayList<>(held.size());
      for (AttemptBudget h : held) {
        batch.add(outcomes.failed(h.taskId(), h.attempt(), h.retryCount(), h.maxRetry(),
            "executor " + executorId + " went OFFLINE (missed heartbeats) holding this attempt", false, now));
      }
      return store.complete(batch, executorId, fence());
    }).onComplete(ar -> {
      if (!leading() || term.epoch() != epoch) {
        return;
      }
      if (ar.failed()) {
        LOG.log(Level.WARNING, "recovering the tasks of OFFLINE executor " + executorId + " failed; retrying", ar.cause());
        vertx.setTimer(OFFLINE_RETRY_MS, id -> recoverHeldBy(executorId));
        return;
      }
      List<ScheduledTask> retries = new ArrayList<>();
      for (Settled s : ar.result()) {
        inFlight.remove(s.taskId());
        if ("DELAYED".equals(s.status())) {
          retries.add(new ScheduledTask(s.taskId(), s.triggerTimeMs(), s.priority()));
          metrics.recordRetryScheduled();
        }
        answerSyncWaiters(s);
      }
      inFlight.values().removeIf(f -> f.executorId().equals(executorId));
      metrics.recordExecutorOutcomes(0, ar.result().size());
      toWheel(retries);
      settleParents(ar.result());
      registry.released(executorId);
      LOG.info("executor " + executorId + ": " + ar.result().size() + " held tasks handed to the retry policy");
    });
  }

  // ---- sync endpoint

  /**
   * Body {@code {"task_id","trigger_ms","priority","timeout_ms"}}: the API inserted the task and waits
   * here; the waiter is registered before the task enters the wheel, so a fast result cannot be missed.
   */
  private void onSyncAwait(Message<Object> msg) {
    JsonObject body;
    long taskId;
    try {
      body = ExecutorMessages.parse(msg.body(), "sync");
      taskId = Long.parseLong(body.getString("task_id"));
    } catch (RuntimeException e) {
      msg.fail(400, "sync: task_id missing");
      return;
    }
    syncWaiters.computeIfAbsent(taskId, id -> new ArrayList<>()).add(msg);
    long timeout = Math.max(1, body.getLong("timeout_ms", 3_000L));
    vertx.setTimer(timeout, id -> {
      List<Message<Object>> ws = syncWaiters.get(taskId);
      if (ws != null && ws.remove(msg)) {
        if (ws.isEmpty()) {
          syncWaiters.remove(taskId);
        }
        msg.fail(504, "no outcome within timeout_ms");
      }
    });
    toWheel(List.of(new ScheduledTask(taskId, body.getLong("trigger_ms"), body.getInteger("priority", 5))));
  }

  private void answerSyncWaiters(Settled s) {
    List<Message<Object>> ws = syncWaiters.remove(s.taskId());
    if (ws == null) {
      return;
    }
    JsonObject answer = new JsonObject().put("task_id", Long.toString(s.taskId())).put("status", s.status())
        .put("result", s.resultJson() == null ? null : Json.decodeValue(s.resultJson())).put("error", s.error());
    ws.forEach(w -> w.reply(answer));
  }

  private void toWheel(List<ScheduledTask> tasks) {
    if (!tasks.isEmpty()) {
      vertx.eventBus().send(Addresses.WHEEL_SCHEDULE, new TaskBatch(tasks), LocalCodec.localOnly());
    }
  }

  private JsonObject stats() {
    JsonObject o = new JsonObject().put("leader", leading()).put("node_id", nodeId);
    if (leading()) {
      long now = monoMs();
      JsonArray executors = new JsonArray();
      registry.sessions().forEach(s -> executors.add(s.describe(now)));
      o.put("executors", executors).put("ready_queue", ready.size()).put("in_flight", inFlight.size());
    }
    return o;
  }
}
