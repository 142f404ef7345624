package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The fault matrix's top-of-hour herd: 50 000 HTTP-target tasks due at the same millisecond on one node —
 * the coupon grant at 20:00:00.000. None may be skipped or doubled, none may fire early; the drain time
 * (due instant → last call at the target) and the lateness are reported. {@code -Dax.faults.herd} sets
 * the size.
 */
class HerdIT {
  private static final int TASKS = Integer.getInteger("ax.faults.herd", 50_000);

  @Test
  void fiftyThousandTasksDueAtOneMillisecondEachFireOnceAndNoneEarly() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 1, Map.of())) {
      long due = System.currentTimeMillis() + 15_000; // submitting 50 000 through the API takes ~5 s here
      String trigger = Instant.ofEpochMilli(due).toString();
      List<JsonObject> tasks = new ArrayList<>(TASKS);
      for (int i = 0; i < TASKS; i++) {
        tasks.add(new JsonObject().put("task_type", "herd.grant").put("dedupe", false).put("max_retry", 0)
            .put("callback_url", receiver.url()).put("payload", new JsonObject().put("user", i))
            .put("trigger_time", trigger));
      }
      List<String> ids = ExecutorIT.submitAll(ax.api(0), tasks);
      long submitted = System.currentTimeMillis();
      ax.awaitCount("SELECT count(*) FROM tasks WHERE status IN ('SUCCESS', 'FAILED')", ids.size(),
          due - System.currentTimeMillis() + 180_000);
      Thread.sleep(2_000); // a repeated call would arrive by now
      Receiver.Tally calls = receiver.tally(ids);
      List<Long> lateness = receiver.lateness();
      long early = lateness.stream().filter(l -> l < 0).count();
      long drainMs = FaultRow.percentile(lateness, 100);
      FaultRow.record("herd", Map.of("tasks", ids.size(), "lost", calls.lost(), "run_twice", calls.twice(), "early", early,
              "drain_ms", drainMs, "lateness_p50_ms", FaultRow.percentile(lateness, 50),
              "lateness_p99_ms", FaultRow.percentile(lateness, 99), "submitted_before_due_ms", due - submitted),
          ids.size() + " HTTP tasks due at one millisecond on one node: each called once, none early; drained "
              + drainMs + " ms after the due instant");
      assertEquals(0, calls.lost(), "lost");
      assertEquals(0, calls.twice(), "run twice");
      assertEquals(0, early, "fired early");
      assertEquals(ids.size(), ax.count("SELECT count(*) FROM tasks WHERE status = 'SUCCESS'"));
    }
  }
}
