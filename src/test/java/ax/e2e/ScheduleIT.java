package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Recurring schedules end to end (issue 12): a node started from the jar, a real HTTP receiver, and the
 * signed API. Every occurrence reaches the target once, never before its due time.
 */
class ScheduleIT {

  private static JsonObject callTo(Receiver receiver) {
    return new JsonObject().put("task_type", "it.recurring").put("callback_url", receiver.url());
  }

  private static void awaitCalls(Receiver receiver, int n, long timeoutMs) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (receiver.hits.size() < n && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
    }
    assertTrue(receiver.hits.size() >= n, "expected " + n + " calls, got " + receiver.hits.size());
  }

  @Test
  void aFixedRateScheduleFiresEachOccurrenceOnceAndNeverEarlyThenEnds() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 1, Map.of())) {
      ApiClient api = ax.api(0);
      ApiClient.Reply created = api.post("/openapi/v1/schedules", new JsonObject().put("every_ms", 1_000)
          .put("max_runs", 6).put("task", callTo(receiver)).encode());
      assertEquals(201, created.status(), created.raw().body());
      assertEquals(5, created.body().getJsonArray("next_fire_times").size());
      String id = created.body().getString("schedule_id");

      awaitCalls(receiver, 6, 20_000);
      Thread.sleep(1_500); // a 7th would come now if max_runs were not kept
      assertEquals(6, receiver.hits.size(), "max_runs 6");
      Set<Long> tasks = new HashSet<>();
      for (Receiver.Hit h : receiver.hits) {
        assertTrue(tasks.add(h.taskId()), "task " + h.taskId() + " called twice");
        assertTrue(h.latenessMs() >= 0, "called " + -h.latenessMs() + " ms before its due time");
      }
      long worst = receiver.hits.stream().mapToLong(Receiver.Hit::latenessMs).max().orElseThrow();
      System.out.printf("schedule every 1 s: 6 occurrences, each once; lateness %s ms%n",
          receiver.hits.stream().map(Receiver.Hit::latenessMs).toList());

      JsonObject s = api.get("/openapi/v1/schedules/" + id).body();
      assertEquals("ENDED", s.getString("status"));
      assertEquals(6, s.getLong("runs"));
      assertEquals(List.of(), s.getJsonArray("next_fire_times").getList());
      ApiClient.Reply occurrences = api.get("/openapi/v1/tasks?schedule_id=" + id + "&limit=50");
      assertEquals(6, occurrences.body().getJsonArray("items").size());
      Set<String> scheduledTimes = new HashSet<>();
      for (Object o : occurrences.body().getJsonArray("items")) {
        JsonObject t = (JsonObject) o;
        assertEquals(id, t.getString("schedule_id"));
        assertTrue(scheduledTimes.add(t.getString("scheduled_time")), "one occurrence per scheduled time");
      }
      assertEquals(0, api.get("/openapi/v1/tasks?schedule_id=1").body().getJsonArray("items").size());
    }
  }

  @Test
  void pauseStopsOccurrencesResumeSkipsWhatWasMissedAndTriggerRunsOneNow() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 1, Map.of())) {
      ApiClient api = ax.api(0);
      ApiClient.Reply created = api.post("/openapi/v1/schedules", new JsonObject().put("cron", "* * * * * *")
          .put("misfire", "skip").put("name", "every-second").put("task", callTo(receiver)).encode());
      assertEquals(201, created.status(), created.raw().body());
      String id = created.body().getString("schedule_id");
      ApiClient.Reply sameName = api.post("/openapi/v1/schedules", new JsonObject().put("cron", "* * * * *")
          .put("name", "every-second").put("task", callTo(receiver)).encode());
      assertEquals(409, sameName.status(), sameName.raw().body());

      awaitCalls(receiver, 2, 15_000);
      ApiClient.Reply paused = api.post("/openapi/v1/schedules/" + id + "/pause", "");
      assertEquals(200, paused.status(), paused.raw().body());
      assertEquals("PAUSED", paused.body().getString("status"));
      Thread.sleep(500); // a call already in flight may still arrive
      int atPause = receiver.hits.size();
      Thread.sleep(8_000);
      assertEquals(atPause, receiver.hits.size(), "nothing fires while paused");
      assertEquals(409, api.post("/openapi/v1/schedules/" + id + "/pause", "").status(), "already paused");

      ApiClient.Reply resumed = api.post("/openapi/v1/schedules/" + id + "/resume", "");
      assertEquals(200, resumed.status(), resumed.raw().body());
      awaitCalls(receiver, atPause + 2, 10_000);
      JsonObject s = api.get("/openapi/v1/schedules/" + id).body();
      assertTrue(s.getLong("misfired") >= 1, "skip records the seconds missed while paused: " + s.encode());

      ApiClient.Reply triggered = api.post("/openapi/v1/schedules/" + id + "/trigger", "");
      assertEquals(201, triggered.status(), triggered.raw().body());
      long extra = Long.parseLong(triggered.body().getString("task_id"));
      long deadline = System.currentTimeMillis() + 5_000;
      while (receiver.calls(extra) == 0 && System.currentTimeMillis() < deadline) {
        Thread.sleep(50);
      }
      assertEquals(1, receiver.calls(extra), "the triggered occurrence ran once");

      ApiClient.Reply deleted = api.delete("/openapi/v1/schedules/" + id);
      assertEquals(200, deleted.status(), deleted.raw().body());
      assertEquals("ENDED", deleted.body().getString("status"));
      Thread.sleep(500);
      int atEnd = receiver.hits.size();
      Thread.sleep(2_500);
      assertEquals(atEnd, receiver.hits.size(), "nothing fires once deleted");
      assertEquals(404, api.get("/openapi/v1/schedules/99").status());
    }
  }

  @Test
  void aFixedDelayScheduleRunsEachOccurrenceAfterTheDelayFromThePreviousEnd() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 1, Map.of())) {
      ApiClient api = ax.api(0);
      ApiClient.Reply created = api.post("/openapi/v1/schedules", new JsonObject().put("after_ms", 1_500)
          .put("max_runs", 3).put("task", callTo(receiver)).encode());
      assertEquals(201, created.status(), created.raw().body());
      awaitCalls(receiver, 3, 20_000);
      Thread.sleep(2_500);
      assertEquals(3, receiver.hits.size(), "max_runs 3");
      for (int i = 1; i < 3; i++) {
        long gap = receiver.hits.get(i).arrivedAtMs() - receiver.hits.get(i - 1).arrivedAtMs();
        assertTrue(gap >= 1_500, "occurrence " + i + " came " + gap + " ms after the previous one");
      }
      JsonObject s = api.get("/openapi/v1/schedules/" + created.body().getString("schedule_id")).body();
      assertEquals("ENDED", s.getString("status"));
      assertEquals(3, s.getLong("runs"));
      System.out.printf("fixed delay 1.5 s: gaps %d and %d ms%n",
          receiver.hits.get(1).arrivedAtMs() - receiver.hits.get(0).arrivedAtMs(),
          receiver.hits.get(2).arrivedAtMs() - receiver.hits.get(1).arrivedAtMs());
    }
  }

  /** The check: a one-second cron fires 60 occurrences in 60 s, each once, none early. */
  @Test
  void aOneSecondCronFiresSixtyOccurrencesInSixtySecondsEachOnceNoneEarly() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 1, Map.of())) {
      ApiClient api = ax.api(0);
      ApiClient.Reply created = api.post("/openapi/v1/schedules", new JsonObject().put("cron", "* * * * * *")
          .put("max_runs", 60).put("task", callTo(receiver)).encode());
      assertEquals(201, created.status(), created.raw().body());
      long first = java.time.Instant.parse(created.body().getJsonArray("next_fire_times").getString(0)).toEpochMilli();

      awaitCalls(receiver, 60, first - System.currentTimeMillis() + 61_000);
      Thread.sleep(1_500);
      assertEquals(60, receiver.hits.size(), "max_runs 60");
      Set<Long> tasks = new HashSet<>();
      Set<Long> dueTimes = new HashSet<>();
      long worst = 0;
      for (Receiver.Hit h : receiver.hits) {
        assertTrue(tasks.add(h.taskId()), "task " + h.taskId() + " called twice");
        assertTrue(dueTimes.add(h.triggerTimeMs()), "two calls for the due time " + h.triggerTimeMs());
        assertTrue(h.latenessMs() >= 0, "called " + -h.latenessMs() + " ms before its due time");
        assertEquals(0, (h.triggerTimeMs() - first) % 1_000, "due on a whole second after the first " + first + ": "
            + h.body().encode());
        worst = Math.max(worst, h.latenessMs());
      }
      long last = receiver.hits.stream().mapToLong(Receiver.Hit::triggerTimeMs).max().orElseThrow();
      assertEquals(first + 59_000, last, "60 consecutive seconds, none missed");
      long[] lateness = receiver.hits.stream().mapToLong(Receiver.Hit::latenessMs).sorted().toArray();
      System.out.printf("cron every second: 60 occurrences, each once; lateness p50 %d ms, max %d ms%n",
          lateness[30], worst);
    }
  }

  /**
   * overlap skip: a run takes 2.5 s and the schedule fires every second; occurrences never overlap, the
   * ones that came due meanwhile are SKIPPED and counted.
   */
  @Test
  void overlapSkipNeverRunsTwoOccurrencesAtOnceAndCountsTheSkippedOnes() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 1, Map.of())) {
      ApiClient api = ax.api(0);
      ApiClient.Reply created = api.post("/openapi/v1/schedules", new JsonObject().put("every_ms", 1_000)
          .put("overlap", "skip").put("max_runs", 8)
          .put("task", new JsonObject().put("task_type", "it.overlap.sleep2500").put("callback_url", receiver.url()))
          .encode());
      assertEquals(201, created.status(), created.raw().body());
      String id = created.body().getString("schedule_id");
      Thread.sleep(12_000);
      List<Receiver.Hit> hits = receiver.hits;
      assertTrue(hits.size() >= 2, "some occurrences ran: " + hits.size());
      for (int i = 1; i < hits.size(); i++) {
        long gap = hits.get(i).arrivedAtMs() - hits.get(i - 1).arrivedAtMs();
        assertTrue(gap >= 2_500, "occurrence " + i + " started " + gap + " ms after the previous one, which runs 2.5 s");
      }
      JsonObject s = api.get("/openapi/v1/schedules/" + id).body();
      assertEquals(8, s.getLong("runs"), s.encode());
      JsonArray items = api.get("/openapi/v1/tasks?schedule_id=" + id + "&limit=50").body().getJsonArray("items");
      long skipped = items.stream().filter(o -> "SKIPPED".equals(((JsonObject) o).getString("status"))).count();
      long succeeded = items.stream().filter(o -> "SUCCESS".equals(((JsonObject) o).getString("status"))).count();
      assertEquals(8, items.size());
      assertEquals(8, skipped + succeeded, "every occurrence ended: " + items.encode());
      assertEquals(hits.size(), succeeded);
      assertTrue(skipped >= 4, "the seconds that came due during a run are skipped: " + skipped);
      assertEquals(skipped, s.getLong("skipped"));
      System.out.printf("overlap skip, 1 s rate, 2.5 s runs: %d ran, %d skipped%n", succeeded, skipped);
    }
  }

  @Test
  void resumingAPausedScheduleWithFireOnceRunsOneNowAndRecordsTheRestAsMisfired() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 1, Map.of("AX_SCHEDULE_MISFIRE_THRESHOLD_MS", "1000"))) {
      ApiClient api = ax.api(0);
      ApiClient.Reply created = api.post("/openapi/v1/schedules", new JsonObject().put("cron", "* * * * * *")
          .put("task", callTo(receiver)).encode());
      String id = created.body().getString("schedule_id");
      awaitCalls(receiver, 1, 10_000);
      assertEquals(200, api.post("/openapi/v1/schedules/" + id + "/pause", "").status());
      Thread.sleep(500);
      int atPause = receiver.hits.size();
      Thread.sleep(5_000);
      long resumedAt = System.currentTimeMillis();
      assertEquals(200, api.post("/openapi/v1/schedules/" + id + "/resume", "").status());
      awaitCalls(receiver, atPause + 1, 5_000);
      Receiver.Hit catchUp = receiver.hits.get(atPause);
      assertTrue(catchUp.arrivedAtMs() - resumedAt < 1_000, "one occurrence at once: "
          + (catchUp.arrivedAtMs() - resumedAt) + " ms after resume");
      Thread.sleep(300);
      JsonObject s = api.get("/openapi/v1/schedules/" + id).body();
      assertTrue(s.getLong("misfired") >= 3, "the other seconds missed while paused are recorded: " + s.encode());
      Set<Long> due = new HashSet<>();
      receiver.hits.forEach(h -> assertTrue(due.add(h.triggerTimeMs()), "a due time ran twice"));
    }
  }
}
