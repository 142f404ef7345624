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
 * The fault matrix's baseline at its size: 10 000 HTTP-target tasks due uniformly within 60 s on one node,
 * no fault — each must reach its target once, none early; lateness is reported (the benchmark holds it to
 * a bound). The other rows' figures are read against this one. Run by {@code faults/run.sh --full}.
 */
class BaselineIT {
  private static final int TASKS = Integer.getInteger("ax.faults.baseline", 10_000);
  private static final long WINDOW_MS = 60_000;

  @Test
  void tenThousandTasksDueWithinAMinuteEachFireOnceAndNoneEarly() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 1, Map.of())) {
      long first = System.currentTimeMillis() + 15_000; // submission of 10 000 takes a few seconds
      List<JsonObject> tasks = new ArrayList<>(TASKS);
      for (int i = 0; i < TASKS; i++) {
        tasks.add(new JsonObject().put("task_type", "baseline.quick").put("dedupe", false)
            .put("callback_url", receiver.url()).put("max_retry", 0)
            .put("trigger_time", Instant.ofEpochMilli(first + i * WINDOW_MS / TASKS).toString()));
      }
      List<String> ids = ExecutorIT.submitAll(ax.api(0), tasks);
      ax.awaitCount("SELECT count(*) FROM tasks WHERE status IN ('SUCCESS', 'FAILED')", ids.size(),
          first + WINDOW_MS - System.currentTimeMillis() + 60_000);
      Thread.sleep(2_000); // a repeated call would arrive by now
      Receiver.Tally calls = receiver.tally(ids);
      List<Long> lateness = receiver.lateness();
      long early = lateness.stream().filter(l -> l < 0).count();
      FaultRow.record("baseline", Map.of("tasks", ids.size(), "lost", calls.lost(), "run_twice", calls.twice(), "early", early,
              "lateness_p50_ms", FaultRow.percentile(lateness, 50), "lateness_p99_ms", FaultRow.percentile(lateness, 99),
              "lateness_max_ms", FaultRow.percentile(lateness, 100)),
          ids.size() + " HTTP tasks due uniformly within " + WINDOW_MS / 1000 + " s on one node, no fault");
      assertEquals(0, calls.lost(), "lost");
      assertEquals(0, calls.twice(), "run twice");
      assertEquals(0, early, "fired early");
      assertEquals(ids.size(), ax.count("SELECT count(*) FROM tasks WHERE status = 'SUCCESS'"));
    }
  }
}
