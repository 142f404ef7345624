package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fingerprint rule of API.md (R5) against two real nodes: the same tenant, task_type and payload,
 * trigger times less than 5 s apart, is one task — however the payload is spelled, whichever node each
 * copy reaches, however many race. PostgreSQL enforces it (V13), so no node's memory is involved.
 */
class DedupeIT {
  private static final int CLIENTS = 16;
  private static final int ROUNDS = 10;

  /** The same payload, spelled differently by each client: member order, whitespace, number form. */
  private static String spelling(int client, int round) {
    return switch (client % 4) {
      case 0 -> "{\"order\":" + round + ",\"amount\":12.50,\"tags\":[\"a\",\"b\"]}";
      case 1 -> "{ \"tags\" : [ \"a\", \"b\" ], \"amount\" : 12.5, \"order\" : " + round + " }";
      case 2 -> "{\"amount\":1.25e1,\"order\":" + round + ".0,\"tags\":[\"a\",\"b\"]}";
      default -> "{\"tags\":[\"a\",\"b\"],\"order\":" + round + "e0,\"amount\":12.500}";
    };
  }

  @Test
  void sixteenClientsRacingOnTwoNodesCreateOneTaskPerPayload() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 2, Map.of())) {
      ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
      try {
        long base = System.currentTimeMillis() + 4_000;
        Set<String> created = new TreeSet<>();
        int maxCreated = 0;
        int maxIds = 0;
        for (int round = 0; round < ROUNDS; round++) {
          CountDownLatch go = new CountDownLatch(1);
          List<Future<ApiClient.Reply>> replies = new ArrayList<>();
          for (int c = 0; c < CLIENTS; c++) {
            ApiClient api = ax.api(c % 2);
            // 16 trigger times 250 ms apart: every pair is less than 5 s apart (rounds differ by payload)
            String body = "{\"task_type\":\"it.dedupe\",\"callback_url\":\"" + receiver.url() + "\",\"trigger_time\":\""
                + Instant.ofEpochMilli(base + c * 250L) + "\",\"payload\":" + spelling(c, round) + "}";
            replies.add(pool.submit(() -> {
              go.await();
              return api.post("/openapi/v1/tasks", body);
            }));
          }
          go.countDown();
          int fresh = 0;
          Set<String> ids = new TreeSet<>();
          for (Future<ApiClient.Reply> f : replies) {
            ApiClient.Reply r = f.get();
            ids.add(r.body().getString("task_id"));
            if (r.status() == 201) {
              fresh++;
            } else {
              assertEquals(200, r.status(), r.raw().body());
              assertEquals("fingerprint", r.body().getString("duplicate_reason"), r.raw().body());
            }
          }
          maxCreated = Math.max(maxCreated, fresh);
          maxIds = Math.max(maxIds, ids.size());
          if (round == ROUNDS - 1 || fresh != 1 || ids.size() != 1) {
            FaultRow.record("idempotency", Map.of("tasks_created", maxCreated, "distinct_ids_answered", maxIds,
                    "rounds", round + 1, "racing_clients", CLIENTS),
                CLIENTS + " clients on two nodes racing with one payload spelled 4 ways, " + (round + 1)
                    + " rounds: one task per round (fingerprint dedupe, not biz_key)");
          }
          assertEquals(1, fresh, "round " + round + ": one 201 among " + CLIENTS + " racing clients");
          assertEquals(1, ids.size(), "round " + round + ": every answer names the same task: " + ids);
          created.addAll(ids);
        }
        assertEquals(ROUNDS, created.size());
        assertEquals(ROUNDS, ax.count("SELECT count(*) FROM tasks WHERE task_type = 'it.dedupe'"));
        // each created task runs once: nothing was lost by the refused copies either
        ax.awaitCount("SELECT count(*) FROM tasks WHERE task_type = 'it.dedupe' AND status = 'SUCCESS'", ROUNDS,
            60_000);
        for (String id : created) {
          assertEquals(1, receiver.calls(Long.parseLong(id)), "task " + id + " called once");
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void fiveSecondsApartOrDedupeFalseAreDistinctTasksAndABatchKeepsItsFirstCopy() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 1, Map.of())) {
      ApiClient api = ax.api(0);
      long t = System.currentTimeMillis() + 3_600_000;
      JsonObject first = task(receiver, t);
      assertEquals(201, api.submit(first).status());
      assertEquals(201, api.submit(task(receiver, t + 5_000)).status(), "exactly 5 s apart: a different task");
      ApiClient.Reply near = api.submit(task(receiver, t + 4_999));
      assertEquals(200, near.status(), "4.999 s after the first (and 1 ms before the second)");
      ApiClient.Reply optedOut = api.submit(task(receiver, t).put("dedupe", false));
      assertEquals(201, optedOut.status(), "dedupe: false is always created");
      assertFalse(api.get("/openapi/v1/tasks/" + optedOut.body().getString("task_id")).body().getBoolean("dedupe"));
      assertEquals(201, api.submit(task(receiver, t).put("task_type", "it.dedupe.other")).status(),
          "another task_type is another task");

      // a batch: item 1 repeats item 0 (it gets item 0's task), item 2 repeats an existing task
      JsonArray items = new JsonArray().add(task(receiver, t + 60_000)).add(task(receiver, t + 60_001))
          .add(task(receiver, t + 1));
      JsonArray results = api.post("/openapi/v1/tasks/batch", new JsonObject().put("tasks", items).encode()).body()
          .getJsonArray("results");
      assertEquals(201, results.getJsonObject(0).getInteger("status_code"));
      assertEquals(200, results.getJsonObject(1).getInteger("status_code"));
      assertEquals(results.getJsonObject(0).getString("task_id"), results.getJsonObject(1).getString("task_id"));
      assertEquals("fingerprint", results.getJsonObject(1).getString("duplicate_reason"));
      assertEquals(200, results.getJsonObject(2).getInteger("status_code"));
      assertTrue(results.getJsonObject(2).getBoolean("duplicate"));
      assertEquals(5, ax.count("SELECT count(*) FROM tasks WHERE task_type LIKE 'it.dedupe%'"));

      // a sharded item is stored after the batch's shared statement, yet the earlier of two equal items
      // is still the one created (ApiFuzzIT once found the later, unsharded, one created instead)
      JsonObject processor = new JsonObject().put("task_type", "it.dedupe.mixed").put("processor", "noop")
          .put("payload", new JsonObject().put("n", 1));
      JsonArray mixed = new JsonArray()
          .add(processor.copy().put("shard_total", 3).put("trigger_time", Instant.ofEpochMilli(t + 120_000).toString()))
          .add(processor.copy().put("trigger_time", Instant.ofEpochMilli(t + 120_001).toString()))
          .add(processor.copy().put("shard_total", 2).put("trigger_time", Instant.ofEpochMilli(t + 120_002).toString()));
      JsonArray answers = api.post("/openapi/v1/tasks/batch", new JsonObject().put("tasks", mixed).encode()).body()
          .getJsonArray("results");
      assertEquals(201, answers.getJsonObject(0).getInteger("status_code"), answers.encode());
      for (int i = 1; i <= 2; i++) {
        assertEquals(200, answers.getJsonObject(i).getInteger("status_code"), answers.encode());
        assertEquals(answers.getJsonObject(0).getString("task_id"), answers.getJsonObject(i).getString("task_id"));
      }
      assertEquals(1, ax.count("SELECT count(*) FROM tasks WHERE task_type = 'it.dedupe.mixed' AND parent_id IS NULL"));
    }
  }

  private static JsonObject task(Receiver receiver, long triggerMs) {
    return new JsonObject().put("task_type", "it.dedupe").put("callback_url", receiver.url())
        .put("trigger_time", Instant.ofEpochMilli(triggerMs).toString())
        .put("payload", new JsonObject().put("order", 7).put("amount", 12.5));
  }
}
