package ax.delivery;

import ax.delivery.DispatchCommand.Answer;
import ax.delivery.DispatchCommand.AnswerSync;
import ax.delivery.DispatchCommand.ArmAckFlush;
import ax.delivery.DispatchCommand.Complete;
import ax.delivery.DispatchCommand.FailSync;
import ax.delivery.DispatchCommand.LoadHeld;
import ax.delivery.DispatchCommand.LoadReady;
import ax.delivery.DispatchCommand.LookUpAttempts;
import ax.delivery.DispatchCommand.Push;
import ax.delivery.DispatchCommand.Release;
import ax.delivery.DispatchCommand.SettleParents;
import ax.delivery.DispatchCommand.SweepStaleParents;
import ax.delivery.DispatchCommand.ToWheel;
import ax.delivery.DispatchCommand.WriteAcks;
import ax.delivery.DispatchCommand.WriteDispatch;
import ax.fleet.ExecutorRegistry;
import ax.fleet.ExecutorRegistry.Load;
import ax.fleet.ExecutorRegistry.Registration;
import ax.fleet.ExecutorSelector;
import ax.fleet.ExecutorSession;
import ax.fleet.ExecutorView;
import ax.task.Attempt;
import ax.task.AttemptBudget;
import ax.task.Completion;
import ax.task.OutcomePolicy;
import ax.task.OutcomeTally;
import ax.task.ReadyTask;
import ax.task.Settled;
import ax.wheel.ScheduledTask;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Everything the leader decides about remote executors, with no I/O, no Vert.x and no clock of its own
 * (README "Cluster and executors", R6). It takes events — a term starting or ending, an executor
 * registering, heartbeating, draining or reporting results, READY tasks arriving, a database write or a
 * push answered, a tick of time — and returns the {@link DispatchCommand}s to carry out. The runner
 * ({@code ExecutorVerticle}) performs them and reports back with the id each command carried.
 *
 * <p>What it keeps, all of it for the current term only:
 * <ul>
 *   <li>the {@link ExecutorRegistry} (sessions and the R6 health rules);</li>
 *   <li>the {@link ReadyQueue} of READY processor tasks waiting for room;</li>
 *   <li>which task is handed to which executor in which attempt ("handed"), and from that each executor's
 *       room: workers + buffer − tasks handed over and not yet settled. A task enters when a dispatch is
 *       planned and leaves when its dispatch write skipped it, its push was refused or unanswered, its
 *       outcome was recorded, or its executor went OFFLINE and was settled — one place each, so the room
 *       can neither go negative nor leak;</li>
 *   <li>acks waiting for their lingering RUNNING write, result batches being recorded, and the sync
 *       endpoint's waiters.</li>
 * </ul>
 *
 * <p>The hand-over of one task: claimed (up to {@code AX_CLAIM_LEAD_MS} before its trigger time) →
 * {@link WriteDispatch} (DISPATCHING, a new attempt, this executor; one write for all the trigger
 * milliseconds of a claim) → {@link Push} at its trigger time → ack → {@link WriteAcks} after
 * {@code ackLingerMs} unless its result came first → result → {@link Complete} (fenced by executor and
 * attempt) → a retry goes {@link ToWheel}. Refused or unanswered pushes go back to READY ({@link Release})
 * and are offered again.
 *
 * <p>Not thread-safe: one owner calls it, from one thread.
 */
public final class ExecutorDispatch {
  private static final String RESULTS_NOT_RECORDED = "results not recorded; send them again";

  /**
   * A dispatch message: written, then pushed. {@code written} is null until the write answered. The
   * pushes of one write share its {@link Write}.
   */
  private static final class Batch {
    final String executorId;
    final List<ReadyTask> tasks;
    final Write write;
    List<Attempt> written;

    Batch(String executorId, List<ReadyTask> tasks, Write write) {
      this.executorId = executorId;
      this.tasks = tasks;
      this.write = write;
    }
  }

  /**
   * One DISPATCHING write, in flight until every push it was split into was answered: a write counts
   * once against {@code maxDispatchesInFlight}, however many trigger milliseconds its tasks have.
   */
  private static final class Write {
    int pushesLeft = 1;
  }

  /** A result batch being recorded; {@code requestId} is the runner's, to answer the executor. */
  private record ResultRequest(long requestId, String executorId, List<ReportedOutcome> reported,
                               List<String> malformed, long nowMs) {
  }

  /** Outcomes being written: of a result batch ({@code request} set) or of an OFFLINE executor's tasks. */
  private record Completing(ResultRequest request, String executorId, List<Completion> batch) {
    boolean offline() {
      return request == null;
    }
  }

  private final DispatchSettings settings;
  private final OutcomePolicy outcomes;
  private final Function<String, ExecutorSelector> selectors;
  private final DispatchObserver observer;

  private long epoch;
  private ExecutorRegistry registry;
  private ReadyQueue ready;
  private final HandOvers handed = new HandOvers();
  private final Map<Long, Batch> dispatches = new HashMap<>();
  private final Map<Long, List<ReadyTask>> releases = new HashMap<>();
  private final Map<String, Map<Long, Attempt>> pendingAcks = new HashMap<>();
  private final Map<Long, ResultRequest> lookups = new HashMap<>();
  private final Map<Long, Completing> completions = new HashMap<>();
  private final SyncWaiters syncWaiters = new SyncWaiters();
  private final Set<String> recovering = new HashSet<>();
  private boolean ackFlushArmed;
  private boolean toppingUp;
  private long lastTopUpMs;
  /** The latest time the dispatch was told (term start or tick): hand-overs are stamped with it. */
  private long lastTickMs;
  private int dispatchesInFlight;
  private long nextId = 1;
  private List<DispatchCommand> out = new ArrayList<>();

  public ExecutorDispatch(DispatchSettings settings, OutcomePolicy outcomes,
                          Function<String, ExecutorSelector> selectors, DispatchObserver observer) {
    this.settings = settings;
    this.outcomes = outcomes;
    this.selectors = selectors;
    this.observer = observer;
  }

  // ---- term

  public boolean leading() {
    return epoch > 0;
  }

  public long epoch() {
    return epoch;
  }

  /** This node now leads in {@code epoch}: an empty registry (executors register again) and queue. */
  public List<DispatchCommand> startTerm(long newEpoch, long nowMs) {
    if (newEpoch < 1) {
      throw new IllegalArgumentException("a term needs an epoch ≥ 1, was " + newEpoch);
    }
    forgetTerm();
    epoch = newEpoch;
    registry = new ExecutorRegistry(settings.heartbeatMs());
    ready = new ReadyQueue(settings.readyQueueCap());
    lastTopUpMs = nowMs;
    lastTickMs = nowMs;
    return done();
  }

  /**
   * The term ended: everything in memory goes (PostgreSQL keeps every task); sync waiters are told to
   * look again under the next leader. Answers for this term's ids are ignored from now on.
   */
  public List<DispatchCommand> endTerm() {
    List<Long> waiting = syncWaiters.all();
    if (!waiting.isEmpty()) {
      out.add(new FailSync(waiting, 503, "leader changed; the task runs under the next leader"));
    }
    forgetTerm();
    return done();
  }

  private void forgetTerm() {
    epoch = 0;
    registry = null;
    ready = null;
    handed.clear();
    dispatches.clear();
    releases.clear();
    pendingAcks.clear();
    lookups.clear();
    completions.clear();
    syncWaiters.clear();
    recovering.clear();
    ackFlushArmed = false;
    toppingUp = false;
    dispatchesInFlight = 0;
  }

  // ---- executor requests

  /**
   * @param tokenSubject the executor id the bridge authenticated (null when the message did not come
   *                     through an authenticated connection)
   */
  public List<DispatchCommand> register(long requestId, String tokenSubject, Registration r, long nowMs) {
    if (!leading()) {
      return answer(requestId, new Reply.Refused(503, "register: not the leader; retry shortly"));
    }
    if (tokenSubject == null || !tokenSubject.equals(r.executorId())) {
      return answer(requestId, new Reply.Refused(403, "register: executor_id must be the subject of your token"));
    }
    ExecutorRegistry.Result<ExecutorSession> result = registry.register(r, nowMs);
    if (!result.ok()) {
      return answer(requestId, new Reply.Refused(503,
          "register: the tasks of your previous session are being recovered; retry shortly"));
    }
    observer.executorEvent(r.executorId(), "registered");
    return answer(requestId, new Reply.Registered(r.executorId(), result.value().session(), settings.heartbeatMs(),
        settings.ackTimeoutMs(), epoch));
  }

  public List<DispatchCommand> heartbeat(long requestId, String executorId, String session, Load load, long nowMs) {
    Optional<ExecutorSession> s = leading() && executorId != null
        ? registry.heartbeat(executorId, session, load, nowMs) : Optional.empty();
    if (s.isEmpty()) {
      observer.refused("heartbeat", 1);
      return answer(requestId, new Reply.Refused(410, "unknown or OFFLINE session: register again"));
    }
    out.add(new Answer(requestId, new Reply.Alive(s.get().state().name(), epoch)));
    pump();
    return done();
  }

  public List<DispatchCommand> drain(long requestId, String executorId, String session, boolean doneDraining) {
    if (!leading() || executorId == null) {
      return answer(requestId, new Reply.Refused(410, "unknown or OFFLINE session"));
    }
    if (doneDraining) {
      if (registry.leave(executorId, session)) {
        observer.executorEvent(executorId, "left");
      }
      return answer(requestId, new Reply.DrainState("GONE"));
    }
    if (registry.drain(executorId, session)) {
      observer.executorEvent(executorId, "draining");
      return answer(requestId, new Reply.DrainState("DRAINING"));
    }
    return answer(requestId, new Reply.Refused(410, "unknown or OFFLINE session"));
  }

  // ---- results

  /**
   * An executor reported outcomes. Those of attempts this term handed over carry their retry budget with
   * them; for the others (dispatched by an earlier leader) the budget is looked up first.
   *
   * @param malformed ids of items too malformed to read: refused in the answer
   */
  public List<DispatchCommand> results(long requestId, String executorId, List<ReportedOutcome> reported,
                                       List<String> malformed, long nowMs) {
    if (executorId == null) {
      return answer(requestId, new Reply.Refused(403, "result: not from an authenticated executor"));
    }
    if (!leading()) {
      return answer(requestId, new Reply.Refused(503, RESULTS_NOT_RECORDED));
    }
    Map<Long, Attempt> acks = pendingAcks.get(executorId);
    List<Long> unknown = new ArrayList<>();
    for (ReportedOutcome r : reported) {
      if (acks != null) {
        acks.remove(r.taskId()); // finished already: its RUNNING write would be stale
      }
      if (handed.in(r.taskId(), executorId, r.attempt()) == null) {
        unknown.add(r.taskId());
      }
    }
    ResultRequest request = new ResultRequest(requestId, executorId, reported, malformed, nowMs);
    if (unknown.isEmpty()) {
      completeResults(request, Map.of());
    } else {
      long id = nextId++;
      lookups.put(id, request);
      out.add(new LookUpAttempts(id, executorId, unknown.stream().mapToLong(Long::longValue).toArray()));
    }
    return done();
  }

  public List<DispatchCommand> attemptsLookedUp(long lookupId, List<AttemptBudget> budgets) {
    ResultRequest request = lookups.remove(lookupId);
    if (request != null) {
      Map<Long, AttemptBudget> byId = new HashMap<>();
      budgets.forEach(b -> byId.put(b.taskId(), b));
      completeResults(request, byId);
    }
    return done();
  }

  public List<DispatchCommand> attemptsLookupFailed(long lookupId) {
    ResultRequest request = lookups.remove(lookupId);
    if (request != null) {
      out.add(new Answer(request.requestId(), new Reply.Refused(503, RESULTS_NOT_RECORDED)));
    }
    return done();
  }

  private void completeResults(ResultRequest request, Map<Long, AttemptBudget> lookedUp) {
    List<Completion> batch = new ArrayList<>(request.reported().size());
    for (ReportedOutcome r : request.reported()) {
      HandOvers.HandOver h = handed.in(r.taskId(), request.executorId(), r.attempt());
      int retryCount;
      int maxRetry;
      if (h != null) {
        retryCount = h.task().retryCount();
        maxRetry = h.task().maxRetry();
      } else {
        AttemptBudget b = lookedUp.get(r.taskId());
        if (b == null || b.attempt() != r.attempt()) {
          continue; // not this executor's task in this attempt: refused
        }
        retryCount = b.retryCount();
        maxRetry = b.maxRetry();
      }
      batch.add(r.success() ? outcomes.succeeded(r.taskId(), r.attempt(), retryCount, r.resultJson())
          : outcomes.failed(r.taskId(), r.attempt(), retryCount, maxRetry, r.error(), false, request.nowMs()));
    }
    if (batch.isEmpty()) {
      answerResults(request, Set.of());
      return;
    }
    long id = nextId++;
    completions.put(id, new Completing(request, request.executorId(), batch));
    out.add(new Complete(id, request.executorId(), batch));
  }

  /** Outcomes were written; {@code settled} are those the database accepted. */
  public List<DispatchCommand> completed(long completionId, List<Settled> settled) {
    Completing c = completions.remove(completionId);
    if (c == null) {
      return done();
    }
    List<ScheduledTask> retries = Settled.retriesOf(settled);
    Set<Long> applied = new HashSet<>();
    Set<Long> parents = new LinkedHashSet<>();
    for (Settled s : settled) {
      applied.add(s.taskId());
      if (s.parentId() != null) {
        parents.add(s.parentId());
      }
      answerSync(s);
    }
    // Whatever the outcome, these attempts are no longer out with this executor in this term.
    for (Completion done : c.batch()) {
      handed.settle(done.taskId(), c.executorId(), done.attempt());
    }
    observer.outcomes(OutcomeTally.of(c.batch(), settled));
    if (!retries.isEmpty()) {
      observer.retriesScheduled(retries.size());
      out.add(new ToWheel(retries));
    }
    if (!parents.isEmpty()) {
      out.add(new SettleParents(List.copyOf(parents)));
    }
    if (c.offline()) {
      finishOffline(c.executorId(), settled.size());
    } else {
      answerResults(c.request(), applied);
    }
    pump();
    return done();
  }

  public List<DispatchCommand> completeFailed(long completionId) {
    Completing c = completions.remove(completionId);
    if (c == null) {
      return done();
    }
    if (c.offline()) {
      out.add(new LoadHeld(c.executorId(), settings.heldScanLimit(), settings.offlineRetryMs()));
    } else {
      out.add(new Answer(c.request().requestId(), new Reply.Refused(503, RESULTS_NOT_RECORDED)));
    }
    return done();
  }

  private void answerResults(ResultRequest request, Set<Long> applied) {
    List<String> appliedIds = new ArrayList<>(applied.size());
    List<String> refused = new ArrayList<>(request.malformed());
    for (ReportedOutcome r : request.reported()) {
      (applied.contains(r.taskId()) ? appliedIds : refused).add(Long.toString(r.taskId()));
    }
    if (!refused.isEmpty()) {
      observer.refused("result", refused.size());
    }
    out.add(new Answer(request.requestId(), new Reply.ResultsRecorded(appliedIds, refused)));
  }

  /** Sharded parents brought up to date; those that reached a terminal status answer their waiters. */
  public List<DispatchCommand> parentsSettled(List<Settled> parents) {
    parents.forEach(this::answerSync);
    return done();
  }

  // ---- READY tasks → executors

  /** Processor tasks that are due and claimed (or found READY in PostgreSQL). */
  public List<DispatchCommand> ready(List<ReadyTask> tasks) {
    if (leading()) {
      for (ReadyTask t : tasks) {
        ready.offer(t); // when full they stay in PostgreSQL and a top-up brings them later
      }
      pump();
    }
    return done();
  }

  private void pump() {
    if (!leading()) {
      return;
    }
    for (String processor : ready.processorsWaiting()) {
      while (dispatchesInFlight < settings.maxDispatchesInFlight()) {
        List<ExecutorView> candidates = registry.candidates(processor, handed::outstandingOf);
        int room = 0;
        for (ExecutorView v : candidates) {
          room += v.available() ? v.freeThreads() : 0;
        }
        if (room == 0) {
          break; // backpressure: they wait until an executor reports room
        }
        List<ReadyTask> take = ready.poll(processor, Math.min(room, settings.maxBatch() * 4));
        if (take.isEmpty()) {
          break;
        }
        DispatchPlanner.Plan plan = DispatchPlanner.plan(take, candidates, selectors);
        ready.putBack(plan.leftovers());
        if (plan.byExecutor().isEmpty()) {
          break;
        }
        plan.byExecutor().forEach((executorId, tasks) -> {
          for (int i = 0; i < tasks.size(); i += settings.maxBatch()) {
            dispatch(executorId, List.copyOf(tasks.subList(i, Math.min(tasks.size(), i + settings.maxBatch()))));
          }
        });
      }
    }
  }

  private void dispatch(String executorId, List<ReadyTask> tasks) {
    long id = nextId++;
    dispatches.put(id, new Batch(executorId, tasks, new Write()));
    dispatchesInFlight++;
    long[] ids = new long[tasks.size()];
    for (int i = 0; i < ids.length; i++) {
      handed.handOver(executorId, tasks.get(i), lastTickMs);
      ids[i] = tasks.get(i).taskId();
    }
    out.add(new WriteDispatch(id, executorId, ids));
  }

  /** The DISPATCHING write returned the tasks it changed, each with its new attempt. */
  public List<DispatchCommand> dispatchWritten(long dispatchId, List<Attempt> written) {
    Batch b = dispatches.get(dispatchId);
    if (b == null) {
      return done();
    }
    Map<Long, ReadyTask> byId = new HashMap<>();
    for (ReadyTask t : b.tasks) {
      ready.forget(t.taskId()); // DISPATCHING now, or no longer due (cancelled): either way not queued
      byId.put(t.taskId(), t);
    }
    Set<Long> writtenIds = new HashSet<>();
    written.forEach(a -> writtenIds.add(a.taskId()));
    for (ReadyTask t : b.tasks) {
      if (!writtenIds.contains(t.taskId())) {
        handed.settle(t.taskId(), b.executorId, 0);
      }
    }
    for (Attempt a : written) {
      handed.attemptWritten(a.taskId(), b.executorId, a.attempt());
    }
    if (written.isEmpty() || registry.find(b.executorId).isEmpty()) {
      // Nothing to push, or the executor left or went OFFLINE meanwhile: give what was written back.
      dispatches.remove(dispatchId);
      dispatchesInFlight--;
      release(b.executorId, written, byId);
      pump();
      return done();
    }
    // Tasks are written as soon as they are claimed, ahead of their trigger time (AX_CLAIM_LEAD_MS), so
    // one write serves every millisecond of a claim; each millisecond's tasks are pushed at that time.
    Map<Long, List<Attempt>> byDue = new TreeMap<>();
    for (Attempt a : written) {
      byDue.computeIfAbsent(byId.get(a.taskId()).dueMs(), k -> new ArrayList<>()).add(a);
    }
    dispatches.remove(dispatchId);
    b.write.pushesLeft = byDue.size();
    boolean first = true;
    for (Map.Entry<Long, List<Attempt>> due : byDue.entrySet()) {
      long pushId = first ? dispatchId : nextId++;
      first = false;
      List<ReadyTask> tasks = new ArrayList<>(due.getValue().size());
      List<Integer> attempts = new ArrayList<>(due.getValue().size());
      for (Attempt a : due.getValue()) {
        tasks.add(byId.get(a.taskId()));
        attempts.add(a.attempt());
      }
      Batch push = new Batch(b.executorId, tasks, b.write);
      push.written = due.getValue();
      dispatches.put(pushId, push);
      out.add(new Push(pushId, b.executorId, epoch, tasks, attempts, due.getKey()));
    }
    return done();
  }

  /** A push was answered (or not at all): its write is done when its last push is. */
  private void pushFinished(Batch b) {
    if (--b.write.pushesLeft == 0) {
      dispatchesInFlight--;
    }
  }

  /** The DISPATCHING write failed: the tasks stay due in PostgreSQL, and a top-up brings them back. */
  public List<DispatchCommand> dispatchWriteFailed(long dispatchId) {
    Batch b = dispatches.remove(dispatchId);
    if (b != null) {
      dispatchesInFlight--;
      for (ReadyTask t : b.tasks) {
        ready.forget(t.taskId());
        handed.settle(t.taskId(), b.executorId, 0);
      }
    }
    return done();
  }

  /** The executor answered the push: {@code accepted} went into its buffer, the rest go back to READY. */
  public List<DispatchCommand> pushAnswered(long dispatchId, Set<Long> accepted) {
    Batch b = dispatches.remove(dispatchId);
    if (b == null || b.written == null) {
      return done();
    }
    pushFinished(b);
    List<Attempt> refused = new ArrayList<>();
    Map<Long, Attempt> pending = null;
    for (Attempt a : b.written) {
      if (!accepted.contains(a.taskId())) {
        refused.add(a);
      } else if (handed.in(a.taskId(), b.executorId, a.attempt()) != null) {
        if (pending == null) {
          pending = pendingAcks.computeIfAbsent(b.executorId, id -> new HashMap<>());
        }
        pending.put(a.taskId(), a);
      }
    }
    if (pending != null && !ackFlushArmed) {
      ackFlushArmed = true;
      out.add(new ArmAckFlush(settings.ackLingerMs()));
    }
    if (!refused.isEmpty()) {
      release(b.executorId, refused, tasksById(b.tasks));
    }
    pump();
    return done();
  }

  /** No ack within the ack timeout: the executor is stalled until its next heartbeat; the tasks go back. */
  public List<DispatchCommand> pushUnanswered(long dispatchId) {
    Batch b = dispatches.remove(dispatchId);
    if (b == null || b.written == null) {
      return done();
    }
    pushFinished(b);
    registry.find(b.executorId).ifPresent(ExecutorSession::markStalled);
    observer.dispatchUnanswered(b.executorId, b.written.size());
    release(b.executorId, b.written, tasksById(b.tasks));
    pump();
    return done();
  }

  /**
   * The push's ack may be waiting unread: this node was not running when the ack timeout fell due (a GC
   * pause, a stopped or starved process), and the timeout fired first on waking. "No ack" is not known,
   * so the tasks are not released — a task its executor already runs would go to a second one. They stay
   * handed to that executor, DISPATCHING: its results are accepted as usual, and a task it never got goes
   * back to READY at its DISPATCHING deadline (ack timeout + {@code timeout_ms}, the recovery scan).
   */
  public List<DispatchCommand> pushAckUnread(long dispatchId) {
    Batch b = dispatches.remove(dispatchId);
    if (b == null || b.written == null) {
      return done();
    }
    pushFinished(b);
    pump();
    return done();
  }

  /** Time to write the acks that gathered since the first of them. */
  public List<DispatchCommand> ackFlushDue() {
    ackFlushArmed = false;
    pendingAcks.forEach((executorId, acks) -> {
      if (!acks.isEmpty()) {
        out.add(new WriteAcks(executorId, List.copyOf(acks.values())));
      }
    });
    pendingAcks.clear();
    return done();
  }

  private void release(String executorId, List<Attempt> attempts, Map<Long, ReadyTask> tasks) {
    if (attempts.isEmpty()) {
      return;
    }
    List<ReadyTask> released = new ArrayList<>(attempts.size());
    for (Attempt a : attempts) {
      handed.settle(a.taskId(), executorId, a.attempt());
      ReadyTask t = tasks.get(a.taskId());
      if (t != null) {
        released.add(t);
      }
    }
    long id = nextId++;
    releases.put(id, released);
    out.add(new Release(id, executorId, List.copyOf(attempts)));
  }

  /** The release write answered: the tasks it put back to READY are offered again. */
  public List<DispatchCommand> released(long releaseId, Collection<Long> releasedIds) {
    List<ReadyTask> tasks = releases.remove(releaseId);
    if (tasks != null) {
      Set<Long> ids = new HashSet<>(releasedIds);
      for (ReadyTask t : tasks) {
        if (ids.contains(t.taskId())) {
          ready.offer(t);
        }
      }
      pump();
    }
    return done();
  }

  /** The release write failed: the tasks stay DISPATCHING until recovery rescues them at their deadline. */
  public List<DispatchCommand> releaseFailed(long releaseId) {
    releases.remove(releaseId);
    return done();
  }

  // ---- time: health and top-ups

  /**
   * Applies the heartbeat rules (SUSPECT, OFFLINE: the executor's tasks go through the retry policy) and,
   * every {@code topUpIntervalMs}, looks for work left in PostgreSQL.
   */
  public List<DispatchCommand> tick(long nowMs) {
    if (!leading()) {
      return done();
    }
    long sinceLastTick = nowMs - lastTickMs;
    if (sinceLastTick > settings.tickMs() + settings.heartbeatMs()) {
      // Ticks run every tickMs: a gap this long means this node itself was not running, and the heartbeats
      // sent meanwhile are queued behind this tick. Judging by them now declared live executors OFFLINE
      // (and failed their tasks) after a 2 s stop of a node with 500 ms heartbeats.
      registry.notWatchedUntil(nowMs);
      observer.notWatching(sinceLastTick);
    }
    lastTickMs = Math.max(lastTickMs, nowMs);
    ExecutorRegistry.Sweep sweep = registry.sweep(nowMs);
    for (ExecutorSession s : sweep.suspect()) {
      observer.executorEvent(s.executorId(), "suspect");
    }
    for (ExecutorSession s : sweep.offline()) {
      observer.executorEvent(s.executorId(), "offline");
      pendingAcks.remove(s.executorId());
      recovering.add(s.executorId());
      out.add(new LoadHeld(s.executorId(), settings.heldScanLimit(), 0));
    }
    giveBackAbandonedRoom(nowMs);
    if (nowMs - lastTopUpMs >= settings.topUpIntervalMs()) {
      lastTopUpMs = nowMs;
      out.add(new SweepStaleParents());
      topUp();
    }
    return done();
  }

  /**
   * A live executor that never answers for a task (a result lost for good, a bug) would hold its room
   * for the rest of the term. Past ack timeout + the task's {@code timeout_ms} + a grace, the room comes
   * back; the task itself is the recovery scan's (RUNNING past its deadline times out in PostgreSQL, and
   * a late result is refused there by attempt).
   */
  private void giveBackAbandonedRoom(long nowMs) {
    List<HandOvers.HandOver> abandoned = handed.overdue(nowMs,
        h -> settings.ackTimeoutMs() + h.task().timeoutMs() + settings.handOverGraceMs());
    for (HandOvers.HandOver h : abandoned) {
      if (h.attempt() != 0) { // a dispatch write still in flight is answered for by that write
        handed.settle(h.task().taskId(), h.executorId(), h.attempt());
      }
    }
    int given = (int) abandoned.stream().filter(h -> h.attempt() != 0).count();
    if (given > 0) {
      observer.roomGivenBack(given);
    }
  }

  /**
   * Brings READY tasks left in PostgreSQL (takeover, backpressure, the queue cap, rescues) into memory —
   * only for processors some executor serves now and that have nothing queued: queued tasks go first
   * anyway, whether they can leave now or wait for room, and so would whatever a top-up read.
   */
  private void topUp() {
    if (toppingUp || ready.freeCapacity() == 0) {
      return;
    }
    Set<String> toLoad = new HashSet<>(registry.servedProcessors());
    ready.processorsWaiting().forEach(toLoad::remove);
    if (toLoad.isEmpty()) {
      return;
    }
    toppingUp = true;
    out.add(new LoadReady(Math.min(settings.topUpBatch(), ready.freeCapacity()), Set.copyOf(toLoad)));
  }

  public List<DispatchCommand> toppedUp(List<ReadyTask> tasks) {
    toppingUp = false;
    return ready(tasks);
  }

  public List<DispatchCommand> topUpFailed() {
    toppingUp = false;
    return done();
  }

  /** What the OFFLINE executor held: each attempt fails through the retry policy. */
  public List<DispatchCommand> heldLoaded(String executorId, List<AttemptBudget> held, long nowMs) {
    if (!recovering.contains(executorId)) {
      return done();
    }
    if (held.isEmpty()) {
      finishOffline(executorId, 0);
      return done();
    }
    List<Completion> batch = new ArrayList<>(held.size());
    for (AttemptBudget h : held) {
      batch.add(outcomes.failed(h.taskId(), h.attempt(), h.retryCount(), h.maxRetry(),
          "executor " + executorId + " went OFFLINE (missed heartbeats) holding this attempt", false, nowMs));
    }
    long id = nextId++;
    completions.put(id, new Completing(null, executorId, batch));
    out.add(new Complete(id, executorId, batch));
    return done();
  }

  public List<DispatchCommand> heldLoadFailed(String executorId) {
    if (recovering.contains(executorId)) {
      out.add(new LoadHeld(executorId, settings.heldScanLimit(), settings.offlineRetryMs()));
    }
    return done();
  }

  /** The OFFLINE executor's tasks are settled: nothing of it is handed over any more; it may register again. */
  private void finishOffline(String executorId, int settledCount) {
    recovering.remove(executorId);
    handed.settleAll(executorId);
    registry.released(executorId);
    observer.offlineSettled(executorId, settledCount);
  }

  // ---- the sync endpoint

  /**
   * The API stored a task and waits for its outcome; the waiter is registered before the task enters the
   * wheel, so a fast result cannot slip past it.
   */
  public List<DispatchCommand> syncAwait(long waiterId, ScheduledTask task) {
    if (!leading()) {
      out.add(new FailSync(List.of(waiterId), 503, "not the leader; retry"));
      return done();
    }
    syncWaiters.await(waiterId, task.taskId());
    out.add(new ToWheel(List.of(task)));
    return done();
  }

  public List<DispatchCommand> syncExpired(long waiterId) {
    if (syncWaiters.expire(waiterId)) {
      out.add(new FailSync(List.of(waiterId), 504, "no outcome within timeout_ms"));
    }
    return done();
  }

  private void answerSync(Settled s) {
    List<Long> waiters = syncWaiters.answer(s.taskId());
    if (!waiters.isEmpty()) {
      out.add(new AnswerSync(waiters, s));
    }
  }

  // ---- views

  /** Tasks handed to {@code executorId} in this term and not yet settled. */
  public int outstandingOf(String executorId) {
    return handed.outstandingOf(executorId);
  }

  /** Tasks handed to executors in this term and not yet settled, over all executors. */
  public int handedOver() {
    return handed.size();
  }

  public int readyQueueSize() {
    ReadyQueue q = ready;
    return q == null ? 0 : q.size();
  }

  /** Executors by state (none when not leading). */
  public ExecutorRegistry.Census census() {
    return registry == null ? ExecutorRegistry.Census.NONE : registry.census();
  }

  /** The registered sessions (empty when not leading). */
  public Collection<ExecutorSession> sessions() {
    return registry == null ? List.of() : registry.sessions();
  }

  /** Dispatch messages written or pushed and not yet answered. */
  public int dispatchesInFlight() {
    return dispatchesInFlight;
  }

  // ---- plumbing

  private List<DispatchCommand> answer(long requestId, Reply reply) {
    out.add(new Answer(requestId, reply));
    return done();
  }

  private List<DispatchCommand> done() {
    List<DispatchCommand> commands = out;
    out = new ArrayList<>();
    return commands;
  }

  private static Map<Long, ReadyTask> tasksById(List<ReadyTask> tasks) {
    Map<Long, ReadyTask> byId = new HashMap<>();
    tasks.forEach(t -> byId.put(t.taskId(), t));
    return byId;
  }
}
