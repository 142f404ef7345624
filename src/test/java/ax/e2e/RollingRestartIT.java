package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Graceful hand-over (issue 15 part 2): every node of a three-node cluster is stopped with SIGTERM and
 * started again, one after the other, the leader included, while HTTP-target tasks fall due every
 * 40 ms — a fifth of them calls that take 500 ms, so some are in flight at each stop. Nothing may be
 * lost or run twice, and a stopped leader's lease must pass to a standby at once, not after its TTL
 * (15 s here, so the difference shows). Lateness is reported, not asserted (a noisy two-core machine):
 * the benchmark is where its figure is held to a bound.
 *
 * <p>Pacing: the next node is stopped the moment the previous one answers /health, or
 * {@code -Dax.faults.settleMs} later, as an orchestrator's {@code minReadySeconds} would. On this machine
 * all three nodes share two cores, and a JVM that has just started compiles for seconds after it is
 * ready — time taken from the leader next to it, which nodes on their own machines do not share. The
 * lateness "during the restarts" counts the tasks due from each SIGTERM until {@link #AFTER_READY_MS} after
 * that node is ready again, the same windows whatever the pacing, so a longer pause does not dilute it.
 *
 * <p>{@code -Dax.faults.restartNice=N} starts each restarted node under {@code nice -n N} (the full fault
 * suite uses 10): the nearest this one machine comes to the restarted node having its own host, so its
 * start-up competes for the cores only when the leader, the receiver and PostgreSQL leave them idle. The
 * nodes stay at that niceness afterwards, so the leaders of the later hand-overs run niced too. The
 * figures record the niceness; without it the ratio measures how two cores are shared (2.4-3.3× on a quiet
 * machine, up to 8× on a noisy one).
 *
 * <p>Each call's lateness is also reported in two parts, split at the {@code t=} of its signature (the
 * node's clock when it released the task): due → signed is the node's own, signed → received is its HTTP
 * client, the kernel and this test's receiver, which here share the two cores with a starting JVM.
 */
class RollingRestartIT {
  private static final long TTL_MS = 15_000;
  private static final long EVERY_MS = 40;
  private static final long SETTLE_MS = Long.getLong("ax.faults.settleMs", 0);
  private static final long AFTER_READY_MS = 5_000;
  /** {@code -Dax.faults.restartNice}: the niceness restarted nodes run at (see the class comment); 0 by default. */
  private static final int RESTART_NICE = Integer.getInteger("ax.faults.restartNice", 0);

  @Test
  void aRollingRestartUnderLoadLosesNothingRunsNothingTwiceAndHandsTheLeaseOverAtOnce() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 3, Map.of("AX_LEASE_TTL_MS", Long.toString(TTL_MS),
             "AX_RECOVERY_INTERVAL_MS", "1000"))) {
      ax.awaitLeader(30_000);
      long firstDue = System.currentTimeMillis() + 8_000;
      long lastDue = firstDue + 40_000 + 3 * (30_000 + SETTLE_MS); // restarts took up to 12 s each here
      List<JsonObject> tasks = new ArrayList<>();
      for (long due = firstDue; due <= lastDue; due += EVERY_MS) {
        boolean slow = tasks.size() % 5 == 0;
        tasks.add(new JsonObject().put("task_type", slow ? "rolling.slow" : "rolling.quick").put("dedupe", false)
            .put("callback_url", receiver.url()).put("timeout_ms", 10_000).put("max_retry", 0)
            .put("trigger_time", Instant.ofEpochMilli(due).toString()));
      }
      List<String> ids = ExecutorIT.submitAll(ax.api(0), tasks);
      Thread.sleep(Math.max(0, firstDue + 15_000 - System.currentTimeMillis())); // a steady stretch first
      long steadyUntil = System.currentTimeMillis();

      List<String> handOvers = new ArrayList<>();
      long resignedAfterMax = 0;
      long successorAfterResignMax = 0;
      List<String> stoppedLogs = new ArrayList<>();
      List<String> events = new ArrayList<>(List.of("steady-until " + (steadyUntil - firstDue)));
      List<long[]> restartWindows = new ArrayList<>();
      List<Long> successorsLedAt = new ArrayList<>();
      int leader = ax.awaitLeader(5_000);
      List<Integer> order = new ArrayList<>(List.of(0, 1, 2));
      order.remove(Integer.valueOf(leader));
      order.add(1, leader); // a standby, then the leader, then the other standby
      for (int i : order) {
        boolean wasLeader = i == ax.awaitLeader(5_000);
        long stopAt = System.currentTimeMillis();
        int exit = ax.nodes.get(i).stopGracefully();
        long stoppedAfter = System.currentTimeMillis() - stopAt;
        events.add("SIGTERM node-" + i + " " + (stopAt - firstDue) + " stopped " + (stopAt + stoppedAfter - firstDue));
        assertTrue(exit == 0 || exit == 143, "node " + i + " exited with " + exit);
        // the JDK's own shutdown hook once removed the log handlers while the stop was still logging
        String stopLog = ax.nodes.get(i).output();
        stoppedLogs.add(stopLog);
        assertTrue(stopLog.contains("stopped gracefully in"), "node " + i + " logged its stop:\n" + tail(stopLog));
        if (wasLeader) {
          int next = ax.awaitLeader(TTL_MS);
          long successorAfter = System.currentTimeMillis() - stopAt;
          long resignedAt = loggedAt(stopLog, "resigned leader lease");
          long ledAt = loggedAt(ax.nodes.get(next).output(), "became leader, epoch");
          assertTrue(resignedAt > 0, "node " + i + " logged its resignation:\n" + tail(stopLog));
          successorsLedAt.add(ledAt);
          resignedAfterMax = Math.max(resignedAfterMax, resignedAt - stopAt);
          successorAfterResignMax = Math.max(successorAfterResignMax, ledAt - resignedAt);
          handOvers.add("leader node-" + i + " resigned " + (resignedAt - stopAt) + " ms after SIGTERM and stopped in "
              + stoppedAfter + " ms, node-" + next + " leading " + (ledAt - resignedAt) + " ms after the resignation");
          assertTrue(successorAfter < TTL_MS / 2, "the successor led " + successorAfter + " ms after the SIGTERM: "
              + "the lease was not handed over (TTL " + TTL_MS + " ms)");
        } else {
          handOvers.add("standby node-" + i + " stopped in " + stoppedAfter + " ms");
        }
        ax.restart(i, Map.of(), RESTART_NICE == 0 ? List.of() : List.of("nice", "-n", Integer.toString(RESTART_NICE)));
        long readyAt = System.currentTimeMillis();
        events.add("restarted node-" + i + " " + (readyAt - firstDue));
        restartWindows.add(new long[] {stopAt, readyAt + AFTER_READY_MS});
        Thread.sleep(SETTLE_MS);
      }
      long restartsEnded = System.currentTimeMillis();
      assertTrue(restartsEnded < lastDue, "the restarts ended before the last task was due");

      ax.awaitCount("SELECT count(*) FROM tasks WHERE status IN ('SUCCESS', 'FAILED')", ids.size(),
          lastDue - System.currentTimeMillis() + 60_000);
      Thread.sleep(2_000); // a call repeated late would arrive by now
      Receiver.Tally calls = receiver.tally(ids);
      // a graceful hand-over leaves nothing for the successor's recovery: every claim answered before the
      // lease was resigned, every call it claimed made and written during the drain
      List<String> logs = new ArrayList<>(stoppedLogs);
      ax.nodes.forEach(n -> logs.add(n.output()));
      long refired = logs.stream().flatMap(String::lines).filter(l -> l.contains("HTTP calls left in flight by")).count();
      assertEquals(ids.size(), ax.count("SELECT count(*) FROM tasks WHERE status = 'SUCCESS'"), "every task succeeded");
      List<Long> steady = new ArrayList<>();
      List<Long> restarting = new ArrayList<>();
      // the same lateness in two parts: until the node signed the call, and from there to the receiver
      List<Long> steadySigned = new ArrayList<>();
      List<Long> restartingSigned = new ArrayList<>();
      List<Long> steadyOnTheWay = new ArrayList<>();
      List<Long> restartingOnTheWay = new ArrayList<>();
      List<Long> successorsFirstSecond = new ArrayList<>(); // a new leader's first calls: its cold paths show here
      long early = 0;
      for (Receiver.Hit h : receiver.hits) {
        early += h.latenessMs() < 0 ? 1 : 0;
        if (h.triggerTimeMs() < steadyUntil) {
          steady.add(h.latenessMs());
          steadySigned.add(h.signedAtMs() - h.triggerTimeMs());
          steadyOnTheWay.add(h.arrivedAtMs() - h.signedAtMs());
        } else if (restartWindows.stream().anyMatch(w -> h.triggerTimeMs() >= w[0] && h.triggerTimeMs() <= w[1])) {
          restarting.add(h.latenessMs());
          restartingSigned.add(h.signedAtMs() - h.triggerTimeMs());
          restartingOnTheWay.add(h.arrivedAtMs() - h.signedAtMs());
        }
        if (successorsLedAt.stream().anyMatch(at -> h.triggerTimeMs() >= at && h.triggerTimeMs() < at + 1_000)) {
          successorsFirstSecond.add(h.latenessMs());
        }
      }
      Map<String, Object> figures = new java.util.LinkedHashMap<>();
      figures.put("tasks", ids.size());
      figures.put("lost", calls.lost());
      figures.put("run_twice", calls.twice());
      figures.put("early", early);
      figures.put("lateness_p99_steady_ms", FaultRow.percentile(steady, 99));
      figures.put("lateness_p99_restarting_ms", FaultRow.percentile(restarting, 99));
      figures.put("signed_late_p99_steady_ms", FaultRow.percentile(steadySigned, 99));
      figures.put("signed_late_p99_restarting_ms", FaultRow.percentile(restartingSigned, 99));
      figures.put("signed_to_received_p99_steady_ms", FaultRow.percentile(steadyOnTheWay, 99));
      figures.put("signed_to_received_p99_restarting_ms", FaultRow.percentile(restartingOnTheWay, 99));
      figures.put("lateness_max_successors_first_second_ms", successorsFirstSecond.stream().mapToLong(l -> l).max().orElse(-1));
      figures.put("resigned_after_sigterm_ms_max", resignedAfterMax);
      figures.put("successor_after_resignation_ms_max", successorAfterResignMax);
      figures.put("recoveries_after_graceful_stops", refired);
      figures.put("settle_ms", SETTLE_MS);
      figures.put("restart_nice", RESTART_NICE);
      FaultRow.record("restart", figures,
          "SIGTERM and restart of each node of a 3-node cluster in turn, the leader included, under HTTP load, the next "
              + "stopped " + SETTLE_MS + " ms after the previous was ready"
              + (RESTART_NICE == 0 ? "" : ", restarted nodes at nice " + RESTART_NICE + " (all on one 2-core machine)")
              + ": " + String.join("; ", handOvers));
      System.out.printf("RollingRestartIT: %d tasks, lost %d, run twice %d, early %d; lateness p50/p99/max steady "
              + "%s, during the restarts %s (settle %d ms, restarted at nice %d), in a successor's first second %s; %s%n",
          ids.size(), calls.lost(), calls.twice(), early, figures(steady), figures(restarting), SETTLE_MS, RESTART_NICE,
          figures(successorsFirstSecond), String.join("; ", handOvers));
      System.out.printf("RollingRestartIT lateness in parts, p50/p99/max: due → signed by the node steady %s, during "
          + "the restarts %s; signed → received steady %s, during the restarts %s%n", figures(steadySigned),
          figures(restartingSigned), figures(steadyOnTheWay), figures(restartingOnTheWay));
      System.out.println("RollingRestartIT events, ms after the first due: " + events);
      receiver.hits.stream().sorted((a, b) -> Long.compare(b.latenessMs(), a.latenessMs())).limit(10)
          .forEach(h -> {
            String node; // the claim's own lateness tells a slow claim from a slow call
            try {
              node = ax.rowsAsText("SELECT a.node_id, round(extract(epoch from a.started_at - t.trigger_time)*1000) AS start_late,"
                  + " round(extract(epoch from a.finished_at - t.trigger_time)*1000) AS finish_late FROM tasks t JOIN task_attempts a"
                  + " USING (task_id) WHERE task_id = " + h.taskId()).replace('\n', ' ');
            } catch (Exception e) {
              node = e.toString();
            }
            System.out.println("RollingRestartIT latest calls: late " + h.latenessMs() + " (signed +"
                + (h.signedAtMs() - h.triggerTimeMs()) + ") due+" + (h.triggerTimeMs() - firstDue) + node);
          });
      assertEquals(0, calls.lost(), "lost");
      assertEquals(0, calls.twice(), "run twice");
      assertEquals(0, early, "fired early");
      assertEquals(0, refired, "recovery runs that fired calls a gracefully stopped leader left behind");
    }
  }

  /** When a node last logged a line containing {@code phrase} (its leading timestamp), or -1. */
  private static long loggedAt(String log, String phrase) {
    return log.lines().filter(l -> l.contains(phrase)).reduce((first, later) -> later)
        .map(l -> Instant.parse(l.substring(0, l.indexOf(' '))).toEpochMilli()).orElse(-1L);
  }

  private static String tail(String log) {
    return log.substring(Math.max(0, log.length() - 3_000));
  }

  private static String figures(List<Long> lateness) {
    if (lateness.isEmpty()) {
      return "-";
    }
    List<Long> sorted = lateness.stream().sorted().toList();
    return sorted.get(sorted.size() / 2) + "/" + sorted.get((int) Math.min(sorted.size() - 1, sorted.size() * 0.99))
        + "/" + sorted.get(sorted.size() - 1) + " ms (n=" + sorted.size() + ")";
  }
}
