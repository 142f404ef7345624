package ax.delivery;

import ax.delivery.DispatchCommand.Complete;
import ax.delivery.DispatchCommand.LoadHeld;
import ax.delivery.DispatchCommand.LoadReady;
import ax.delivery.DispatchCommand.LookUpAttempts;
import ax.delivery.DispatchCommand.Push;
import ax.delivery.DispatchCommand.Release;
import ax.delivery.DispatchCommand.WriteAcks;
import ax.delivery.DispatchCommand.WriteDispatch;
import ax.fleet.ExecutorRegistry.Load;
import ax.task.OutcomePolicy;
import ax.task.ReadyTask;
import ax.task.RetryBackoff;
import ax.task.TaskStatus;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Over any sequence of events — executors registering, heartbeating, draining, going silent; writes and
 * pushes answered, refused, failed or never answered, in any order; results in any order; terms ending —
 * an executor's room never goes negative, never exceeds what it registered, and never leaks: once every
 * write is answered and every result reported, nothing is left handed over.
 */
class ExecutorDispatchPropertiesTest {
  private static final List<String> EXECUTORS = List.of("a", "b", "c");
  private static final Map<String, int[]> CAPACITY = Map.of("a", new int[] {2, 1}, "b", new int[] {1, 0},
      "c", new int[] {3, 2});
  private static final int TASKS = 40;

  enum Kind { REGISTER, HEARTBEAT, READY, ANSWER, FAIL, RESULT, TICK, DRAIN, LEAVE, TERM }

  record Step(Kind kind, int a, int b) {
  }

  @Provide
  Arbitrary<List<Step>> scripts() {
    Arbitrary<Kind> kinds = Arbitraries.frequency(
        net.jqwik.api.Tuple.of(2, Kind.REGISTER), net.jqwik.api.Tuple.of(4, Kind.HEARTBEAT),
        net.jqwik.api.Tuple.of(6, Kind.READY), net.jqwik.api.Tuple.of(14, Kind.ANSWER),
        net.jqwik.api.Tuple.of(2, Kind.FAIL), net.jqwik.api.Tuple.of(6, Kind.RESULT),
        net.jqwik.api.Tuple.of(2, Kind.TICK), net.jqwik.api.Tuple.of(1, Kind.DRAIN),
        net.jqwik.api.Tuple.of(1, Kind.LEAVE), net.jqwik.api.Tuple.of(1, Kind.TERM));
    Arbitrary<Step> step = Combinators.combine(kinds, Arbitraries.integers().between(0, 1_000),
        Arbitraries.integers().between(0, 1_000)).as(Step::new);
    return step.list().ofMinSize(1).ofMaxSize(120);
  }

  @Property(tries = 400)
  void anExecutorsRoomNeverGoesNegativeNorBeyondItsCapacityAndNeverLeaks(@ForAll("scripts") List<Step> script) {
    Sim sim = new Sim();
    for (Step s : script) {
      sim.apply(s);
      sim.checkRoom();
    }
    sim.settleEverything();
    sim.checkRoom();
    assertEquals(0, sim.dispatch.handedOver(), "handed over after everything settled");
    for (String e : EXECUTORS) {
      assertEquals(0, sim.dispatch.outstandingOf(e), "room leaked on " + e);
    }
  }

  /** The dispatch, an in-memory tasks table and executors that run what they accept. */
  static final class Sim {
    final FakeExecutionDb db = new FakeExecutionDb();
    final ExecutorDispatch dispatch = new ExecutorDispatch(DispatchSettings.of(1_000, 2_000, 10_000),
        new OutcomePolicy(RetryBackoff.of(1_000)), type -> ExecutorDispatchTest.MOST_ROOM, DispatchObserver.NONE);
    final List<DispatchCommand> pending = new ArrayList<>();
    final Map<String, String> sessions = new HashMap<>();
    /** What each executor accepted and has not reported yet: task id → attempt. */
    final Map<String, Map<Long, Integer>> running = new HashMap<>();
    /** Results on their way, by request: the SDK keeps a result until an answer names it, and sends it again. */
    final Map<Long, Object[]> reporting = new HashMap<>();
    long now;
    long epoch = 1;
    long requests;

    Sim() {
      for (int i = 1; i <= TASKS; i++) {
        db.add(i, "p");
      }
      take(dispatch.startTerm(epoch, now));
      for (String e : EXECUTORS) { // a fleet that takes work from the first step; the script changes it from there
        int[] cap = CAPACITY.get(e);
        take(dispatch.register(requests++, e, ExecutorDispatchTest.registration(e, cap[0], cap[1]), now));
        take(dispatch.heartbeat(requests++, e, sessions.get(e), new Load(1, 0, 0, 0, 0, 0), now));
      }
    }

    void take(List<DispatchCommand> commands) {
      for (DispatchCommand c : commands) {
        if (c instanceof DispatchCommand.Answer a && a.reply() instanceof Reply.Registered r) {
          sessions.put(r.executorId(), r.session());
        } else if (c instanceof DispatchCommand.Answer a && reporting.containsKey(a.requestId())) {
          Object[] sent = reporting.remove(a.requestId());
          if (a.reply() instanceof Reply.Refused) { // not recorded: the executor keeps it and sends it again
            running.computeIfAbsent((String) sent[0], k -> new HashMap<>()).put((Long) sent[1], (Integer) sent[2]);
          }
        } else if (c instanceof WriteAcks w) {
          db.acks(w);
        } else if (c instanceof DispatchCommand.ArmAckFlush) {
          pending.add(c);
        } else if (c instanceof WriteDispatch || c instanceof Push || c instanceof Release
            || c instanceof LookUpAttempts || c instanceof Complete || c instanceof LoadReady || c instanceof LoadHeld) {
          pending.add(c);
        }
      }
    }

    void apply(Step s) {
      String e = EXECUTORS.get(s.a() % EXECUTORS.size());
      switch (s.kind()) {
        case REGISTER -> {
          int[] cap = CAPACITY.get(e);
          take(dispatch.register(requests++, e, ExecutorDispatchTest.registration(e, cap[0], cap[1]), now));
        }
        case HEARTBEAT -> {
          if (sessions.containsKey(e)) {
            take(dispatch.heartbeat(requests++, e, sessions.get(e), new Load(1, 0, 0, 0, 0, 0), now));
          }
        }
        case READY -> {
          List<ReadyTask> due = new ArrayList<>();
          for (FakeExecutionDb.Row r : db.rows.values()) {
            if ((r.status == TaskStatus.READY || r.status == TaskStatus.DELAYED) && due.size() < 1 + s.b() % 8) {
              due.add(r.task);
            }
          }
          take(dispatch.ready(due));
        }
        case ANSWER -> answer(s.b(), true);
        case FAIL -> answer(s.b(), false);
        case RESULT -> report(e, s.b());
        case TICK -> {
          now += 100 + s.b() * 5L;
          take(dispatch.tick(now));
        }
        case DRAIN -> {
          if (sessions.containsKey(e)) {
            take(dispatch.drain(requests++, e, sessions.get(e), false));
          }
        }
        case LEAVE -> {
          if (sessions.containsKey(e)) {
            take(dispatch.drain(requests++, e, sessions.get(e), true));
          }
        }
        case TERM -> {
          take(dispatch.endTerm());
          pending.clear(); // the runner drops answers of an ended term; the lease fence refuses its writes
          sessions.clear();
          epoch++;
          take(dispatch.startTerm(epoch, now));
        }
      }
    }

    /** Answers one pending command: carried out (ok) or failed / unanswered. */
    void answer(int pick, boolean ok) {
      if (pending.isEmpty()) {
        return;
      }
      DispatchCommand c = pending.remove(pick % pending.size());
      if (c instanceof WriteDispatch w) {
        take(ok ? dispatch.dispatchWritten(w.dispatchId(), db.dispatch(w)) : dispatch.dispatchWriteFailed(w.dispatchId()));
      } else if (c instanceof Push p) {
        if (!ok) {
          take(dispatch.pushUnanswered(p.dispatchId()));
          return;
        }
        Set<Long> accepted = new HashSet<>();
        Map<Long, Integer> runs = running.computeIfAbsent(p.executorId(), k -> new HashMap<>());
        for (int i = 0; i < p.tasks().size(); i++) {
          if ((pick + i) % 4 != 3) { // now and then an executor refuses a task (its buffer is full)
            long id = p.tasks().get(i).taskId();
            accepted.add(id);
            runs.put(id, p.attempts().get(i));
          }
        }
        take(dispatch.pushAnswered(p.dispatchId(), accepted));
      } else if (c instanceof Release r) {
        take(ok ? dispatch.released(r.releaseId(), db.release(r)) : dispatch.releaseFailed(r.releaseId()));
      } else if (c instanceof LookUpAttempts l) {
        take(ok ? dispatch.attemptsLookedUp(l.requestId(), db.budgets(l)) : dispatch.attemptsLookupFailed(l.requestId()));
      } else if (c instanceof Complete k) {
        take(ok ? dispatch.completed(k.completionId(), db.complete(k)) : dispatch.completeFailed(k.completionId()));
      } else if (c instanceof LoadReady l) {
        take(ok ? dispatch.toppedUp(db.loadReady(l)) : dispatch.topUpFailed());
      } else if (c instanceof LoadHeld l) {
        take(ok ? dispatch.heldLoaded(l.executorId(), db.held(l), now) : dispatch.heldLoadFailed(l.executorId()));
      } else if (c instanceof DispatchCommand.ArmAckFlush) {
        take(dispatch.ackFlushDue());
      }
    }

    /** The executor reports one of the tasks it runs (success or failure). */
    void report(String e, int pick) {
      Map<Long, Integer> runs = running.getOrDefault(e, Map.of());
      if (runs.isEmpty()) {
        return;
      }
      long id = new ArrayList<>(runs.keySet()).get(pick % runs.size());
      int attempt = runs.remove(id);
      boolean success = pick % 3 != 0;
      long request = requests++;
      reporting.put(request, new Object[] {e, id, attempt});
      take(dispatch.results(request, e, List.of(new ReportedOutcome(id, attempt, success, null,
          success ? null : "boom")), List.of(), now));
    }

    void checkRoom() {
      int sum = 0;
      for (String e : EXECUTORS) {
        int n = dispatch.outstandingOf(e);
        assertTrue(n >= 0, "negative room on " + e);
        int[] cap = CAPACITY.get(e);
        assertTrue(n <= cap[0] + cap[1], e + " holds " + n + ", more than it registered for");
        sum += n;
      }
      assertEquals(sum, dispatch.handedOver(), "the per-executor counts and the tasks handed over agree");
    }

    /**
     * Answers everything, lets executors report everything, and lets time pass (executors keep
     * heartbeating), until nothing is in flight.
     */
    void settleEverything() {
      for (int round = 0; round < 200; round++) {
        now += 1_000;
        for (String e : EXECUTORS) {
          if (sessions.containsKey(e)) {
            take(dispatch.heartbeat(requests++, e, sessions.get(e), new Load(1, 0, 0, 0, 0, 0), now));
          }
        }
        while (!pending.isEmpty()) {
          answer(0, true);
          checkRoom();
        }
        for (String e : EXECUTORS) {
          while (!running.getOrDefault(e, Map.of()).isEmpty()) {
            report(e, 1);
            while (!pending.isEmpty()) {
              answer(0, true);
            }
          }
        }
        take(dispatch.ackFlushDue());
        take(dispatch.tick(now));
        if (pending.isEmpty() && running.values().stream().allMatch(Map::isEmpty) && dispatch.dispatchesInFlight() == 0
            && dispatch.handedOver() == 0) {
          return;
        }
      }
    }
  }
}
