package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fault matrix's stuck rows: tasks left DISPATCHING by owners that are all dead — the leader that wrote
 * them and the executor they were pushed to, both killed -9 before the executor acknowledged. No one will
 * ever release them; only the successor's recovery scan can, and it does so at the row's deadline, which the
 * DISPATCHING write sets to <em>ack timeout + timeout_ms</em> (not ack timeout alone: the executor may have
 * acknowledged and be running the task while the dead leader never wrote RUNNING — ExecutionStore), plus at
 * most one scan interval. Each rescued task must then run once, on another executor, and succeed.
 *
 * <p>HTTP targets never sit in DISPATCHING (their claim writes RUNNING); a node killed mid-call is the
 * leader-crash row (ClusterFailoverIT).
 */
class StuckRowsIT {
  private static final int TASKS = 10;
  private static final long ACK_TIMEOUT_MS = 4_000;
  private static final long TIMEOUT_MS = 4_000;
  private static final long SCAN_MS = 1_000;

  @Test
  void rowsLeftDispatchingByADeadLeaderAndADeadExecutorAreRescuedAtTheirDeadlineAndRunOnce() throws Exception {
    // Heartbeats every 2 s (OFFLINE after 8 s) and a 4 s ack timeout: the leader neither releases the tasks
    // nor declares the stopped executor OFFLINE before the test kills it.
    Map<String, String> env = Map.of("AX_ACK_TIMEOUT_MS", Long.toString(ACK_TIMEOUT_MS), "AX_EXECUTOR_HEARTBEAT_MS", "2000",
        "AX_RECOVERY_INTERVAL_MS", Long.toString(SCAN_MS));
    try (TestPostgres pg = TestPostgres.create(); AxCluster ax = AxCluster.start(pg, 2, env)) {
      int leader = ax.awaitLeader(30_000);
      int standby = 1 - leader;
      try (ExecutorProcess doomed = ExecutorProcess.java("doomed", AxCluster.token("doomed"), ax.server(leader), "noop")) {
        awaitLive(ax, leader, "doomed"); // the leader sends work only after a session's first heartbeat
        doomed.signal("STOP"); // takes the pushes into its socket, never acknowledges
        List<JsonObject> tasks = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
          tasks.add(new JsonObject().put("task_type", "stuck.noop").put("processor", "noop").put("dedupe", false)
              .put("timeout_ms", TIMEOUT_MS).put("trigger_time", Instant.now().toString()).put("payload", new JsonObject().put("i", i)));
        }
        List<String> ids = ExecutorIT.submitAll(ax.api(leader), tasks);
        ax.awaitCount("SELECT count(*) FROM tasks WHERE status = 'DISPATCHING' AND executor_id = 'doomed'", TASKS, 3_000);
        ax.nodes.get(leader).killHard();
        doomed.killHard();
        long killedAt = System.currentTimeMillis();
        Map<Long, Long> dispatchedAt = dispatchWrites(ax);
        assertEquals(TASKS, dispatchedAt.size(), "DISPATCHING rows left by the dead leader");

        int next = ax.awaitLeader(20_000);
        long takeoverMs = System.currentTimeMillis() - killedAt;
        assertEquals(standby, next);
        try (ExecutorProcess rescuer = ExecutorProcess.java("rescuer", AxCluster.token("rescuer"), ax.server(standby), "noop")) {
          // Watch each row leave DISPATCHING: when (this machine's clock, the database's too) and how.
          long bound = ACK_TIMEOUT_MS + TIMEOUT_MS + 2 * SCAN_MS + 10_000;
          Map<Long, Long> rescuedAfter = new HashMap<>();
          long watchUntil = dispatchedAt.values().stream().mapToLong(Long::longValue).max().orElseThrow() + bound;
          while (rescuedAfter.size() < dispatchedAt.size() && System.currentTimeMillis() < watchUntil) {
            long now = System.currentTimeMillis();
            List<Long> stuck = stillDispatching(ax, dispatchedAt);
            for (long id : dispatchedAt.keySet()) {
              if (!stuck.contains(id)) {
                rescuedAfter.putIfAbsent(id, now - dispatchedAt.get(id));
              }
            }
            Thread.sleep(100);
          }
          ax.awaitCount("SELECT count(*) FROM tasks WHERE status IN ('SUCCESS', 'FAILED')", TASKS, 30_000);
          Thread.sleep(1_000); // a second run would be recorded by now
          Map<String, Integer> runs = rescuer.countsByTask();
          Map<String, Integer> doomedRuns = doomed.countsByTask();
          int lost = 0;
          int twice = 0;
          for (String id : ids) {
            int n = runs.getOrDefault(id, 0) + doomedRuns.getOrDefault(id, 0);
            lost += n == 0 ? 1 : 0;
            twice += n > 1 ? 1 : 0;
          }
          long deadline = ACK_TIMEOUT_MS + TIMEOUT_MS;
          int neverRescued = TASKS - rescuedAfter.size();
          long early = rescuedAfter.values().stream().filter(ms -> ms < deadline - 100).count(); // 100 ms: clock reads
          long withinAckPlusScan = rescuedAfter.values().stream().filter(ms -> ms <= ACK_TIMEOUT_MS + SCAN_MS).count();
          long worst = rescuedAfter.values().stream().mapToLong(Long::longValue).max().orElse(-1);
          long best = rescuedAfter.values().stream().mapToLong(Long::longValue).min().orElse(-1);
          int succeeded = ax.count("SELECT count(*) FROM tasks WHERE status = 'SUCCESS' AND attempt = 2");
          System.out.printf("stuck rows: %d DISPATCHING rows of a dead leader and a dead executor; rescued %d to %d ms after "
              + "the DISPATCHING write (deadline ack %d + timeout_ms %d, scan every %d ms); never rescued %d; lost %d, "
              + "run twice %d; successor led %d ms after the kill%n", TASKS, best, worst, ACK_TIMEOUT_MS, TIMEOUT_MS, SCAN_MS,
              neverRescued, lost, twice, takeoverMs);
          Map<String, Object> figures = new HashMap<>();
          figures.put("stuck", TASKS);
          figures.put("never_rescued", neverRescued);
          figures.put("rescued_before_deadline", early);
          figures.put("rescue_after_dispatch_min_ms", best);
          figures.put("rescue_after_dispatch_max_ms", worst);
          figures.put("deadline_ms", deadline);
          figures.put("within_ack_timeout_plus_one_scan", withinAckPlusScan);
          figures.put("lost", lost);
          figures.put("run_twice", twice);
          figures.put("succeeded_on_attempt_2", succeeded);
          figures.put("takeover_ms", takeoverMs);
          FaultRow.record("stuck-rows", figures, TASKS + " processor tasks left DISPATCHING when the leader that wrote them "
              + "and the stopped executor they were pushed to were both killed -9; the successor's recovery scan put each "
              + "back to READY " + best + "-" + worst + " ms after its DISPATCHING write (deadline: ack timeout " + ACK_TIMEOUT_MS
              + " ms + timeout_ms " + TIMEOUT_MS + " ms; scan every " + SCAN_MS + " ms) and another executor ran each once");
          assertEquals(0, neverRescued, "rows never rescued within " + bound + " ms of their DISPATCHING write");
          assertEquals(0, early, "rows rescued before ack timeout + timeout_ms: " + rescuedAfter);
          assertTrue(worst <= deadline + 2 * SCAN_MS + 2_000, "rescued " + worst + " ms after the DISPATCHING write, past "
              + "ack timeout + timeout_ms + a scan (and slack for a loaded machine)");
          assertEquals(0, lost, "tasks never run");
          assertEquals(0, twice, "tasks run twice");
          assertEquals(TASKS, succeeded, "each task succeeded on its second attempt (the first was the dead executor's)");
        }
      }
    }
  }

  private static void awaitLive(AxCluster ax, int node, String executorId) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 15_000;
    while (System.currentTimeMillis() < deadline) {
      var executors = Health.detail(ax.nodes.get(node).port).getJsonArray("executors");
      if (executors != null && executors.stream().map(JsonObject.class::cast)
          .anyMatch(e -> executorId.equals(e.getString("executor_id")) && "LIVE".equals(e.getString("state")))) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("executor " + executorId + " not LIVE at node-" + node + ": "
        + Health.detail(ax.nodes.get(node).port).encode());
  }

  /** task id → when its DISPATCHING write happened (epoch ms, database clock), for the rows still DISPATCHING. */
  private static Map<Long, Long> dispatchWrites(AxCluster ax) throws Exception {
    Map<Long, Long> out = new HashMap<>();
    try (Connection c = ax.pg.connect(); ResultSet rs = c.createStatement().executeQuery(
        "SELECT task_id, (extract(epoch FROM updated_at) * 1000)::bigint FROM tasks WHERE status = 'DISPATCHING'")) {
      while (rs.next()) {
        out.put(rs.getLong(1), rs.getLong(2));
      }
    }
    return out;
  }

  private static List<Long> stillDispatching(AxCluster ax, Map<Long, Long> ids) throws Exception {
    List<Long> out = new ArrayList<>();
    try (Connection c = ax.pg.connect(); ResultSet rs = c.createStatement().executeQuery(
        "SELECT task_id FROM tasks WHERE status = 'DISPATCHING' AND attempt = 1")) {
      while (rs.next()) {
        if (ids.containsKey(rs.getLong(1))) {
          out.add(rs.getLong(1));
        }
      }
    }
    return out;
  }
}
