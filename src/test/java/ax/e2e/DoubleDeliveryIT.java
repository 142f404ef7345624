package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The fault matrix's "lost ack / double delivery" row: every dispatch reaches the executor twice — the
 * copy right behind the first or up to 400 ms later, often after the task has finished and its outcome
 * has been reported — through a relay between the executor process and the node's bridge. The executor
 * must run each task once (its dedupe window), the node must record one attempt and one outcome per task,
 * and nothing may be lost on the way (the second ack goes to a request already settled). A copy that
 * arrives after the scheduler replaced its attempt (no room, a late ack) must not run either: CI once saw
 * 26 of 500 tasks run twice that way.
 */
class DoubleDeliveryIT {
  private static final int ECHOES = 400;
  private static final int SLEEPS = 100;

  @Test
  void everyDispatchDeliveredTwiceRunsOnceAndIsRecordedOnce() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); AxCluster ax = AxCluster.start(pg, 1, Map.of());
         DuplicatingBridge relay = new DuplicatingBridge(ax.bridgePorts.get(0), 400);
         ExecutorProcess executor = ExecutorProcess.java("twice", AxCluster.token("twice"), relay.servers(),
             "echo,sleep")) {
      List<JsonObject> tasks = new ArrayList<>();
      for (int i = 0; i < ECHOES + SLEEPS; i++) {
        // the sleeps are still running when most of their copies arrive; the echoes have finished
        JsonObject payload = i < ECHOES ? new JsonObject().put("i", i) : new JsonObject().put("ms", 200);
        String processor = i < ECHOES ? "echo" : "sleep";
        tasks.add(new JsonObject().put("task_type", "it.twice." + processor).put("processor", processor)
            .put("payload", payload).put("dedupe", false).put("max_retry", 0));
      }
      List<String> ids = ExecutorIT.submitAll(ax.api(0), tasks);
      ax.awaitCount("SELECT count(*) FROM tasks WHERE status IN ('SUCCESS', 'FAILED')", ids.size(), 90_000);
      executor.awaitStarted(ids.size(), Duration.ofSeconds(10));
      Thread.sleep(1_500); // the last copies (≤ 400 ms late) have arrived and been answered by now

      Map<String, Integer> runs = executor.countsByTask();
      int twice = 0;
      int lost = 0;
      int deliveredTwice = 0;
      for (String id : ids) {
        int n = runs.getOrDefault(id, 0);
        twice += n > 1 ? 1 : 0;
        lost += n == 0 ? 1 : 0;
        deliveredTwice += relay.duplicatedTasks.contains(id) ? 1 : 0;
      }
      // A task may legitimately need a second attempt: an executor without room refuses it, or its ack
      // comes after AX_ACK_TIMEOUT_MS on a loaded machine. Either way it must still run once (the
      // executor refuses a late copy of the replaced attempt and lets a newer one adopt a run still going).
      int succeeded = ax.count("SELECT count(*) FROM tasks WHERE status = 'SUCCESS'");
      int redispatched = ax.count("SELECT count(*) FROM tasks WHERE attempt > 1");
      int attemptRows = ax.count("SELECT count(*) FROM task_attempts");
      FaultRow.record("double-delivery", Map.of("tasks", ids.size(), "delivered_twice", deliveredTwice,
              "dispatch_frames_duplicated", relay.duplicatedFrames.get(), "lost", lost, "run_twice", twice,
              "succeeded", succeeded, "redispatched", redispatched, "attempt_rows", attemptRows),
          "every dispatch frame delivered to the executor twice (the copy 0-400 ms later, often after the outcome "
              + "was reported): each task ran once, one attempt and one SUCCESS recorded per task");
      assertEquals(ids.size(), deliveredTwice, "every task's dispatch must have been delivered twice");
      assertEquals(0, lost, "tasks the executor never ran");
      assertEquals(0, twice, () -> "tasks the executor ran twice; their executions (task attempt shard executor started_at_us):\n"
          + twiceRun(executor));
      String notSucceeded = succeeded == ids.size() ? "" : ax.rowsAsText(
          "SELECT t.status, t.attempt, t.retry_count, a.outcome, a.error, count(*) AS tasks FROM tasks t"
              + " LEFT JOIN task_attempts a ON a.task_id = t.task_id WHERE t.status <> 'SUCCESS'"
              + " GROUP BY 1, 2, 3, 4, 5 ORDER BY tasks DESC LIMIT 20");
      assertEquals(ids.size(), succeeded, () -> "each task SUCCESS; the others (status, attempt, outcomes):"
          + notSucceeded + "\n" + ax.logTail());
      assertEquals(ids.size(), attemptRows, "one attempt row per task");
    }
  }

  private static String twiceRun(ExecutorProcess executor) {
    try {
      Map<String, Integer> runs = executor.countsByTask();
      StringBuilder out = new StringBuilder();
      for (String[] e : executor.executions()) {
        if (runs.getOrDefault(e[0], 0) > 1) {
          out.append(String.join(" ", e)).append('\n');
        }
      }
      return out.toString();
    } catch (java.io.IOException e) {
      return "(cannot read the executions: " + e + ")";
    }
  }
}
