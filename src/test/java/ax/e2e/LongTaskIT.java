package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The fault matrix's long task: work that takes {@value #RUN_MS} ms — six recovery scans and three ack
 * timeouts — but less than its timeout_ms ({@value #TIMEOUT_MS} ms) must be left alone: one attempt, one
 * call or execution, SUCCESS. Both kinds: HTTP targets that answer after {@value #RUN_MS} ms, and processor
 * tasks sleeping as long on an executor. A rescue here would mean a second run of work still in progress.
 */
class LongTaskIT {
  private static final long RUN_MS = 6_000;
  private static final long TIMEOUT_MS = 15_000;
  private static final int EACH = 5;

  @Test
  void tasksRunningPastTheScanAndAckTimeoutButWithinTimeoutMsAreNotRescued() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 1, Map.of());
         ExecutorProcess executor = ExecutorProcess.java("long", AxCluster.token("long"), ax.servers(), "sleep")) {
      String due = Instant.ofEpochMilli(System.currentTimeMillis() + 1_000).toString();
      List<JsonObject> tasks = new ArrayList<>();
      for (int i = 0; i < EACH; i++) {
        tasks.add(new JsonObject().put("task_type", "long.sleep" + RUN_MS).put("dedupe", false).put("max_retry", 2)
            .put("timeout_ms", TIMEOUT_MS).put("callback_url", receiver.url()).put("trigger_time", due));
        tasks.add(new JsonObject().put("task_type", "long.processor").put("processor", "sleep").put("dedupe", false)
            .put("max_retry", 2).put("timeout_ms", TIMEOUT_MS).put("trigger_time", due)
            .put("payload", new JsonObject().put("ms", RUN_MS)));
      }
      long started = System.currentTimeMillis();
      List<String> ids = ExecutorIT.submitAll(ax.api(0), tasks);
      ax.awaitCount("SELECT count(*) FROM tasks WHERE status IN ('SUCCESS', 'FAILED')", ids.size(), TIMEOUT_MS + 30_000);
      long tookMs = System.currentTimeMillis() - started;
      Thread.sleep(2_000); // a rescue's second run would have started by now
      Map<String, Integer> executions = executor.countsByTask();
      int lost = 0;
      int twice = 0;
      for (String id : ids) {
        int runs = receiver.calls(Long.parseLong(id)) + executions.getOrDefault(id, 0);
        lost += runs == 0 ? 1 : 0;
        twice += runs > 1 ? 1 : 0;
      }
      int laterAttempts = ax.count("SELECT count(*) FROM tasks WHERE attempt > 1");
      int attemptRows = ax.count("SELECT count(*) FROM task_attempts");
      int succeeded = ax.count("SELECT count(*) FROM tasks WHERE status = 'SUCCESS' AND attempt = 1");
      double rescued = Health.metric(ax.nodes.get(0).port, "ax_recovery_total", "kind=\"dispatch_unacked\"")
          + Health.metric(ax.nodes.get(0).port, "ax_recovery_total", "kind=\"running_timed_out\"")
          + Health.metric(ax.nodes.get(0).port, "ax_attempts_lost_total", "cause=\"no_outcome\"")
          + Health.metric(ax.nodes.get(0).port, "ax_attempts_lost_total", "cause=\"holder_left\"");
      // a task past attempt 1, a second run, or a rescue the node counted: each would be one
      int falseRescues = Math.max(laterAttempts, Math.max(twice, (int) rescued));
      System.out.printf("long task: %d tasks of %d ms (timeout_ms %d) done in %d ms; tasks past attempt 1 %d, attempt rows %d,"
          + " rescues counted %.0f, run twice %d, lost %d%n", ids.size(), RUN_MS, TIMEOUT_MS, tookMs, laterAttempts,
          attemptRows, rescued, twice, lost);
      Map<String, Object> figures = new HashMap<>();
      figures.put("tasks", ids.size());
      figures.put("false_rescues", falseRescues);
      figures.put("attempts_past_first", laterAttempts);
      figures.put("rescues_counted", (long) rescued);
      figures.put("lost", lost);
      figures.put("run_twice", twice);
      figures.put("run_ms", RUN_MS);
      figures.put("timeout_ms", TIMEOUT_MS);
      FaultRow.record("long-task", figures, EACH + " HTTP calls answering after " + RUN_MS + " ms and " + EACH
          + " executor tasks sleeping " + RUN_MS + " ms (timeout_ms " + TIMEOUT_MS + " ms; recovery scan every 1 s, ack "
          + "timeout 2 s): each ran once, attempt 1, SUCCESS; " + falseRescues + " rescued");
      assertEquals(0, falseRescues, "tasks rescued or re-run while still within timeout_ms");
      assertEquals(0, lost, "tasks never run");
      assertEquals(ids.size(), succeeded, "every task succeeded on its first attempt");
      assertEquals(ids.size(), attemptRows, "one attempt row per task");
    }
  }
}
