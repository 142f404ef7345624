package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Two clustered scheduler nodes and two executors, all real processes on loopback (issue 4, part 2):
 * the leader is killed or paused and nothing is lost or run twice. Each executor records every
 * execution it started; the union of the records must name every task exactly once.
 */
class ClusterFailoverIT {
  private static final long TTL_MS = 3_000;
  /** "At once": well before the deadline path (the calls' timeout_ms 20 s + 5 s), with room for a loaded box. */
  private static final long FIRED_AGAIN_BOUND_MS = TTL_MS + 10_000;

  /**
   * timeout_ms 20 s: a task handed out by the killed leader is rescued only after ack timeout +
   * timeout_ms. Before that the executor's result — held by the SDK until a leader answers — must reach
   * the new leader (takeover ~TTL; a request the event bus still routes to the dead node is answered
   * TIMEOUT by the bridge after 5 s, BridgeLimits.FORWARD_TIMEOUT_MS, and sent again; Hazelcast drops the
   * dead node after about 10 s). A task whose result cannot reach any leader within its timeout_ms is
   * the documented at-least-once window.
   */
  private static List<JsonObject> noops(int n, long dueAtMs) {
    List<JsonObject> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new JsonObject().put("task_type", "it.failover").put("dedupe", false).put("processor", "noop").put("timeout_ms", 20_000)
          .put("trigger_time", Instant.ofEpochMilli(dueAtMs).toString()).put("payload", new JsonObject().put("i", i)));
    }
    return out;
  }

  /** What the executors' records say: tasks never run, run more than once, and which ran more than once. */
  private record Executions(int lost, int twice, List<String> ranTwice) {
  }

  private static Executions executions(List<String> ids, ExecutorProcess... executors) throws Exception {
    Map<String, Integer> runs = new HashMap<>();
    for (ExecutorProcess e : executors) {
      e.countsByTask().forEach((id, n) -> runs.merge(id, n, Integer::sum));
    }
    int lost = 0;
    List<String> ranTwice = new ArrayList<>();
    for (String id : ids) {
      int n = runs.getOrDefault(id, 0);
      lost += n == 0 ? 1 : 0;
      if (n > 1) {
        ranTwice.add(id);
      }
    }
    System.out.printf("failover: %d tasks, never run %d, run more than once %d%n", ids.size(), lost, ranTwice.size());
    return new Executions(lost, ranTwice.size(), ranTwice);
  }

  /**
   * A task run twice is intermittent here (once in dozens of runs, under CI load), so the failure message
   * carries what explains it: each run of the first few such tasks, their rows, and the warnings of the
   * executors and nodes — the logs are gone once the test ends.
   */
  private static void assertEachRanOnce(Executions e, AxCluster ax, ExecutorProcess... executors) throws Exception {
    assertEquals(0, e.lost(), "tasks never executed");
    if (e.twice() == 0) {
      return;
    }
    StringBuilder why = new StringBuilder(e.twice() + " tasks executed more than once");
    for (String id : e.ranTwice().subList(0, Math.min(3, e.twice()))) {
      why.append("\n--- task ").append(id).append(" (task_id attempt shard executor started_at_us):");
      for (ExecutorProcess x : executors) {
        for (String[] run : x.executions()) {
          if (run[0].equals(id)) {
            why.append("\n  ").append(String.join(" ", run));
          }
        }
      }
      why.append(ax.describeTask(id));
    }
    for (ExecutorProcess x : executors) {
      why.append("\n--- executor ").append(x.executorId).append(" warnings ---").append(warnings(x.output()));
    }
    for (int i = 0; i < ax.nodes.size(); i++) {
      why.append("\n--- node-").append(i).append(" warnings ---").append(warnings(ax.nodes.get(i).output()));
    }
    fail(why.toString());
  }

  private static String warnings(String log) {
    StringBuilder out = new StringBuilder();
    String[] lines = log.split("\n");
    int shown = 0;
    for (int i = 0; i < lines.length && shown < 40; i++) {
      String line = lines[i];
      if (line.contains("WARN") || line.contains("SEVERE") || line.contains("leader") || line.contains("result")) {
        out.append("\n  ").append(line);
        shown++;
      }
    }
    return out.toString();
  }

  /**
   * One kill -9 of the leader in the middle of two bursts: 3 000 executor tasks due together, and 600 HTTP
   * calls due from 1 s before to 2 s after the kill, each taking 500 ms, so the leader dies with calls in
   * flight and with outcomes it has not written yet.
   * <ul>
   *   <li>executor tasks: none lost, none run twice (the executors' records);</li>
   *   <li>HTTP calls (issue 9, part 5): every target reached at once — within lease TTL + 10 s of its due
   *       time, where a call found only at its deadline would come after timeout_ms (20 s) + 5 s; the
   *       figure itself (2.8–3.5 s on a quiet machine, the target TTL + 2 s) is printed, not
   *       asserted, because submitting 3 600 tasks on a loaded 2-core machine can already make some late — and
   *       the only targets called twice are calls the dead leader had in flight, each counted in
   *       {@code ax_attempts_lost_total{cause="holder_left"}} and each a new attempt.</li>
   * </ul>
   */
  @Test
  void theLeaderKilledMidBurstLosesNothingRunsNothingTwiceAndItsCallsAreFiredAgainAtOnce() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 2, Map.of())) {
      int leader = ax.awaitLeader(30_000);
      int standby = 1 - leader;
      try (ExecutorProcess a = ExecutorProcess.java("fo-a", AxCluster.token("fo-a"),
               ax.server(leader) + "," + ax.server(standby), "noop");
           ExecutorProcess b = ExecutorProcess.java("fo-b", AxCluster.token("fo-b"),
               ax.server(standby) + "," + ax.server(leader), "noop")) {
        long due = System.currentTimeMillis() + 4_000;
        long killAt = due + 150;
        // Half through each node: the standby forwards its submissions to the leader's wheel.
        List<String> ids = new ArrayList<>(ExecutorIT.submitAll(ax.api(leader), noops(1_500, due)));
        ids.addAll(ExecutorIT.submitAll(ax.api(standby), noops(1_500, due)));
        List<JsonObject> calls = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
          calls.add(new JsonObject().put("task_type", "failover.slow").put("dedupe", false).put("callback_url", receiver.url())
              .put("timeout_ms", 20_000).put("trigger_time", Instant.ofEpochMilli(killAt - 1_000 + i * 5L).toString()));
        }
        List<Long> callIds = new ArrayList<>();
        ExecutorIT.submitAll(ax.api(leader), calls.subList(0, 300)).forEach(id -> callIds.add(Long.parseLong(id)));
        ExecutorIT.submitAll(ax.api(standby), calls.subList(300, 600)).forEach(id -> callIds.add(Long.parseLong(id)));
        long callsSubmittedAt = System.currentTimeMillis();
        long sleep = killAt - System.currentTimeMillis();
        if (sleep > 0) {
          Thread.sleep(sleep);
        }
        long killedAt = System.currentTimeMillis();
        ax.nodes.get(leader).killHard();
        int next = ax.awaitLeader(TTL_MS + 20_000);
        long takeoverMs = System.currentTimeMillis() - killedAt;
        System.out.printf("failover: leader killed mid-burst; node-%d leads after %d ms (TTL %d ms)%n", next,
            takeoverMs, TTL_MS);
        assertEquals(standby, next);
        ax.awaitCount("SELECT count(*) FROM tasks WHERE status = 'SUCCESS'", ids.size() + callIds.size(), 90_000);
        Executions executions = executions(ids, a, b);
        Calls c = calls(receiver, callIds, callsSubmittedAt, ax.nodes.get(next).port);
        long epoch = Health.of(ax.nodes.get(next).port).getLong("epoch");
        FaultRow.record("leader-crash", Map.of("tasks", ids.size() + callIds.size(), "lost", executions.lost() + c.never,
            "run_twice", executions.twice(), "at_least_once_reruns", c.twice, "refired_calls", (long) c.refired,
            "takeover_ms", takeoverMs, "worst_call_after_due_ms", c.worst, "epoch_after", epoch),
            "kill -9 of the leader mid-burst (" + ids.size() + " executor tasks, " + callIds.size()
                + " 500 ms HTTP calls around the kill); node-" + next + " led after " + takeoverMs
                + " ms; HTTP calls the dead leader had in flight were fired again as new attempts");
        assertEachRanOnce(executions, ax, a, b);
        assertTrue(epoch >= 2, "the takeover bumped the epoch");
        assertCallsFiredAgainAtOnce(c);
      }
    }
  }

  /**
   * Lateness is counted from the due time, or from when the submissions returned if that was later: on a
   * loaded machine submitting 3 600 tasks can take longer than the 4 s lead, and a call cannot be early
   * for a task the node did not have yet.
   */
  /** What the receiver saw of the HTTP calls: never called, called twice, the worst first call, the re-fires. */
  private record Calls(int never, int twice, long worst, double refired) {
  }

  private static void assertCallsFiredAgainAtOnce(Calls c) {
    assertEquals(0, c.never, "targets never called");
    assertTrue(c.worst <= FIRED_AGAIN_BOUND_MS, "a task reached its target " + c.worst + " ms after its due time");
    assertTrue(c.twice <= c.refired, c.twice + " targets called twice but only " + c.refired
        + " calls fired again because their node died with them in flight");
  }

  private static Calls calls(Receiver receiver, List<Long> ids, long submittedAtMs, int successorPort)
      throws Exception {
    long worstFromDue = 0;
    long worst = 0;
    int never = 0;
    int twice = 0;
    for (long id : ids) {
      List<Receiver.Hit> hits = receiver.byTask.getOrDefault(id, List.of());
      if (hits.isEmpty()) {
        never++;
        continue;
      }
      Receiver.Hit first = hits.stream().min(Comparator.comparingLong(Receiver.Hit::arrivedAtMs)).orElseThrow();
      worstFromDue = Math.max(worstFromDue, first.latenessMs());
      worst = Math.max(worst, first.arrivedAtMs() - Math.max(first.triggerTimeMs(), submittedAtMs));
      assertEquals(hits.size(), hits.stream().mapToInt(Receiver.Hit::attempt).distinct().count(),
          "task " + id + ": the same attempt was called twice");
      twice += hits.size() > 1 ? 1 : 0;
    }
    double refired = Health.metric(successorPort, "ax_attempts_lost_total", "cause=\"holder_left\"");
    System.out.printf("failover: %d calls due from 1 s before to 2 s after the kill; worst first call %d ms after "
        + "its due time, %d ms after it was due and submitted (bound %d ms); %d targets called twice, %.0f calls of "
        + "the killed leader fired again%n", ids.size(), worstFromDue, worst, FIRED_AGAIN_BOUND_MS, twice, refired);
    return new Calls(never, twice, worst, refired);
  }

  @Test
  void aPausedLeaderWakesUpAsAStandbyAndChangesNothing() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); AxCluster ax = AxCluster.start(pg, 2, Map.of())) {
      int leader = ax.awaitLeader(30_000);
      int standby = 1 - leader;
      long oldEpoch = Health.of(ax.nodes.get(leader).port).getLong("epoch");
      try (ExecutorProcess e = ExecutorProcess.java("pl-a", AxCluster.token("pl-a"),
          ax.server(standby) + "," + ax.server(leader), "noop")) {
        long due = System.currentTimeMillis() + 2_500;
        List<String> ids = new ArrayList<>(ExecutorIT.submitAll(ax.api(leader), noops(500, due)));
        Thread.sleep(Math.max(0, due - System.currentTimeMillis() + 50));
        ax.nodes.get(leader).signal("STOP"); // frozen mid-burst, past its TTL
        int next = ax.awaitLeader(TTL_MS + 20_000);
        assertEquals(standby, next);
        ids.addAll(ExecutorIT.submitAll(ax.api(next), noops(500, System.currentTimeMillis() + 500)));
        ax.awaitCount("SELECT count(*) FROM tasks WHERE status = 'SUCCESS'", ids.size(), 90_000);
        ax.nodes.get(leader).signal("CONT");
        long deadline = System.currentTimeMillis() + 15_000;
        JsonObject woke = Health.of(ax.nodes.get(leader).port);
        while (!"standby".equals(woke.getString("role")) && System.currentTimeMillis() < deadline) {
          Thread.sleep(200);
          woke = Health.of(ax.nodes.get(leader).port);
        }
        assertEquals("standby", woke.getString("role"), "the old leader steps down when it wakes");
        assertNotEquals(oldEpoch, Health.of(ax.nodes.get(next).port).getLong("epoch"));
        Thread.sleep(2_000); // whatever the old leader still had in flight has been tried by now
        int succeeded = ax.count("SELECT count(*) FROM tasks WHERE status = 'SUCCESS'");
        Executions executions = executions(ids, e);
        // A write of the old term that got through would show as a task run again (its stale dispatch) or as
        // a terminal row changed after the new leader finished them all.
        FaultRow.record("zombie-leader", Map.of("tasks", ids.size(), "lost", executions.lost(), "run_twice", executions.twice(),
            "stale_writes_accepted", executions.twice() + Math.abs(succeeded - ids.size()),
            "old_leader_role_after_wake", String.valueOf(woke.getString("role"))),
            "the leader SIGSTOPped mid-burst past its 3 s TTL, the standby took over and finished "
                + ids.size() + " tasks; on SIGCONT the old leader stepped down and changed nothing");
        assertEquals(ids.size(), succeeded);
        assertEachRanOnce(executions, ax, e);
      }
    }
  }
}
