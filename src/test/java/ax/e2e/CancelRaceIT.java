package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fault matrix's "cancel vs dispatch" row: a cancel sent near the task's due time, 1 000 times
 * ({@code -Dax.faults.cancels=N} for another count). The node claims a task {@code AX_CLAIM_LEAD_MS} before
 * its due time and holds it until then, so the race is with the claim: each cancel goes out at a random
 * instant from 10 ms before the claim to 10 ms after the due time (at due ± 10 ms alone every cancel would
 * find the task claimed). Each task must end one of two ways: the cancel
 * answered 200 and the target was never called, or the cancel answered 409 and the target was called
 * exactly once. A cancel that says 200 for a task that ran anyway ("cancelled but ran") is the failure this
 * row exists for; a task that neither ran nor was cancelled is lost.
 */
class CancelRaceIT {
  private static final int TASKS = Integer.getInteger("ax.faults.cancels", 1_000);
  /** Due times 20 ms apart: each cancel races its own task's dispatch, not its neighbours'. */
  private static final long SPACING_MS = 25;
  /** Enough threads that a slow cancel never holds up the next one's send time. */
  private static final int SENDERS = 64;
  /** The node's claim lead, set explicitly: the cancels aim at the claim it makes this long before due. */
  private static final long LEAD_MS = 50;

  @Test
  void aCancelRacingTheClaimEitherCancelsOrFindsTheTaskRunningNeverBoth() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 1, Map.of("AX_CLAIM_LEAD_MS", Long.toString(LEAD_MS)))) {
      ApiClient api = ax.api(0);
      long first = System.currentTimeMillis() + 8_000 + TASKS * 3L; // room to submit them all first
      List<JsonObject> tasks = new ArrayList<>();
      for (int i = 0; i < TASKS; i++) {
        tasks.add(new JsonObject().put("task_type", "race.cancel").put("dedupe", false).put("max_retry", 0)
            .put("callback_url", receiver.url()).put("timeout_ms", 5_000)
            .put("trigger_time", Instant.ofEpochMilli(first + i * SPACING_MS).toString()));
      }
      List<String> ids = ExecutorIT.submitAll(api, tasks);
      assertTrue(System.currentTimeMillis() < first - 1_000, "submitting took too long: the race would not be at due");

      Map<String, Integer> cancelStatus = new ConcurrentHashMap<>();
      Map<String, Long> sentOffsetMs = new ConcurrentHashMap<>();
      ScheduledExecutorService pool = Executors.newScheduledThreadPool(SENDERS);
      try {
        for (int i = 0; i < TASKS; i++) {
          String id = ids.get(i);
          long due = first + i * SPACING_MS;
          long at = due + ThreadLocalRandom.current().nextLong(-LEAD_MS - 10, 11);
          pool.schedule(() -> {
            sentOffsetMs.put(id, System.currentTimeMillis() - due);
            try {
              cancelStatus.put(id, api.post("/openapi/v1/tasks/" + id + "/cancel", "").status());
            } catch (Exception e) {
              cancelStatus.put(id, -1);
            }
          }, at - System.currentTimeMillis(), TimeUnit.MILLISECONDS);
        }
        pool.shutdown();
        assertTrue(pool.awaitTermination(first + TASKS * SPACING_MS - System.currentTimeMillis() + 60_000,
            TimeUnit.MILLISECONDS), "the cancels did not finish");
      } finally {
        pool.shutdownNow();
      }
      ax.awaitCount("SELECT count(*) FROM tasks WHERE task_type = 'race.cancel' AND status IN "
          + "('SUCCESS', 'FAILED', 'CANCELLED')", TASKS, 60_000);
      Thread.sleep(2_000); // a call made after all would have arrived by now

      int cancelled = 0;
      int ran = 0;
      int cancelledButRan = 0;
      int lost = 0;
      int calledTwice = 0;
      int stateDisagrees = 0;
      Map<Integer, Integer> statuses = new TreeMap<>();
      for (String id : ids) {
        int status = cancelStatus.getOrDefault(id, 0);
        statuses.merge(status, 1, Integer::sum);
        int calls = receiver.calls(Long.parseLong(id));
        String state = api.get("/openapi/v1/tasks/" + id).body().getString("status");
        calledTwice += calls > 1 ? 1 : 0;
        if (status == 200) {
          cancelled++;
          cancelledButRan += calls > 0 ? 1 : 0;
          stateDisagrees += "CANCELLED".equals(state) ? 0 : 1;
        } else {
          ran++;
          lost += calls == 0 ? 1 : 0;
          stateDisagrees += "CANCELLED".equals(state) ? 1 : 0;
        }
      }
      long inWindow = sentOffsetMs.values().stream().filter(o -> Math.abs(o) <= 15).count();
      long nearClaim = sentOffsetMs.values().stream().filter(o -> Math.abs(o + LEAD_MS) <= 15).count();
      long minOffset = sentOffsetMs.values().stream().mapToLong(Long::longValue).min().orElse(0);
      long maxOffset = sentOffsetMs.values().stream().mapToLong(Long::longValue).max().orElse(0);
      System.out.printf("cancel race: %d cancels sent %d..%d ms from the due time (%d within 15 ms): %d cancelled "
              + "(200), %d found the task dispatched (409); cancelled but ran %d, lost %d, called twice %d, state "
              + "disagrees %d; statuses %s%n",
          TASKS, minOffset, maxOffset, inWindow, cancelled, ran, cancelledButRan, lost, calledTwice, stateDisagrees, statuses);
      Map<String, Object> figures = new java.util.LinkedHashMap<>(Map.of("races", TASKS, "cancelled", cancelled, "ran", ran,
              "cancelled_but_ran", cancelledButRan, "lost", lost, "run_twice", calledTwice,
              "state_disagrees", stateDisagrees, "cancel_sent_offset_ms", minOffset + ".." + maxOffset,
              "sent_within_15_ms_of_due", inWindow, "cancel_statuses", statuses.toString()));
      figures.put("sent_within_15_ms_of_claim", nearClaim);
      FaultRow.record("cancel-vs-dispatch", figures,
          TASKS + " cancels sent from " + (LEAD_MS + 10) + " ms before to 10 ms after due (the node claims "
              + LEAD_MS + " ms ahead; 25 ms apart, one node; " + nearClaim + " sent within 15 ms of the claim, "
              + inWindow + " of due): " + cancelled + " cancelled and never called, " + ran
              + " answered 409 and called once");
      assertEquals(0, cancelledButRan, "a cancel answered 200 for a task whose target was called");
      assertEquals(0, lost, "a task neither cancelled nor called");
      assertEquals(0, calledTwice, "a target called twice");
      assertEquals(0, stateDisagrees, "the task's state disagrees with the cancel's answer");
      assertEquals(java.util.Set.of(200, 409), new java.util.HashSet<>(statuses.keySet()),
          "every cancel is 200 or 409, and the race went both ways: " + statuses);
    }
  }
}
