package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Dependencies end to end (R8, issue 12): a node started from the jar, a real HTTP target, the signed
 * API. A child runs only after its parents succeeded; a parent that fails skips it, records an alert
 * event and never calls the child's target.
 */
class DependencyIT {

  private static JsonObject call(Receiver receiver, String type) {
    return new JsonObject().put("task_type", type).put("callback_url", receiver.url()).put("max_retry", 0)
        .put("dedupe", false);
  }

  private static JsonObject awaitStatus(ApiClient api, String id, String status, long timeoutMs) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    JsonObject t = api.get("/openapi/v1/tasks/" + id).body();
    while (!status.equals(t.getString("status")) && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
      t = api.get("/openapi/v1/tasks/" + id).body();
    }
    assertEquals(status, t.getString("status"), t.encode());
    return t;
  }

  @Test
  void aFailingParentSkipsItsChildAndGrandchildAndRaisesAnAlertEvent() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 1, Map.of())) {
      ApiClient api = ax.api(0);
      String a = api.submit(call(receiver, "it.dep.fail").put("delay_ms", 500)).body().getString("task_id");
      ApiClient.Reply b = api.submit(call(receiver, "it.dep.child").put("depends_on", new JsonArray().add(a)));
      assertEquals(201, b.status(), b.raw().body());
      assertEquals("CREATED", b.body().getString("status"));
      String bId = b.body().getString("task_id");
      String c = api.submit(call(receiver, "it.dep.grandchild").put("depends_on", new JsonArray().add(bId)))
          .body().getString("task_id");

      awaitStatus(api, a, "FAILED", 10_000);
      JsonObject skipped = awaitStatus(api, bId, "SKIPPED", 5_000);
      assertEquals("dependency " + a + " ended FAILED", skipped.getString("error"));
      assertEquals(new JsonArray().add(a), skipped.getJsonArray("depends_on"));
      assertEquals("dependency " + bId + " ended SKIPPED", awaitStatus(api, c, "SKIPPED", 5_000).getString("error"));
      Thread.sleep(500);
      assertEquals(0, receiver.calls(Long.parseLong(bId)) + receiver.calls(Long.parseLong(c)),
          "a skipped task's target is never called");

      try (Connection conn = pg.connect();
           ResultSet rs = conn.createStatement().executeQuery(
               "SELECT task_id, detail FROM alert_events WHERE kind = 'task_skipped' ORDER BY event_id")) {
        Map<String, String> alerts = new HashMap<>();
        while (rs.next()) {
          alerts.put(Long.toString(rs.getLong(1)), rs.getString(2));
        }
        assertEquals(Map.of(bId, "dependency " + a + " ended FAILED", c, "dependency " + bId + " ended SKIPPED"),
            alerts);
      }
      String metrics = ax.metrics(0);
      assertTrue(metrics.contains("ax_dependency_skipped_total 2.0"), "the skips are counted: "
          + metrics.lines().filter(l -> l.startsWith("ax_dependency")).toList());
    }
  }

  /**
   * A graph of 50 tasks from one batch: task i depends on (i-1)/2 and (i-2)/2 (a binary fan-out with
   * joins). Each runs once, and only after every parent's call was answered.
   */
  @Test
  void aGraphOfFiftyFromOneBatchRunsInDependencyOrder() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 1, Map.of())) {
      ApiClient api = ax.api(0);
      JsonArray items = new JsonArray();
      Map<Integer, List<Integer>> parentsOf = new HashMap<>();
      for (int i = 0; i < 50; i++) {
        JsonObject t = call(receiver, "it.dag").put("payload", new JsonObject().put("node", i));
        if (i > 0) {
          List<Integer> parents = i == 1 ? List.of(0) : List.of((i - 1) / 2, (i - 2) / 2).stream().distinct().toList();
          parentsOf.put(i, parents);
          JsonArray refs = new JsonArray();
          parents.forEach(p -> refs.add("#" + p));
          t.put("depends_on", refs);
        }
        items.add(t);
      }
      ApiClient.Reply reply = api.post("/openapi/v1/tasks/batch", new JsonObject().put("tasks", items).encode());
      assertEquals(200, reply.status(), reply.raw().body());
      JsonArray results = reply.body().getJsonArray("results");
      long[] ids = new long[50];
      for (int i = 0; i < 50; i++) {
        JsonObject r = results.getJsonObject(i);
        assertEquals(201, r.getInteger("status_code"), r.encode());
        assertEquals(i == 0 ? "READY" : "CREATED", r.getString("status"), r.encode());
        ids[i] = Long.parseLong(r.getString("task_id"));
      }

      long deadline = System.currentTimeMillis() + 30_000;
      while (receiver.byTask.size() < 50 && System.currentTimeMillis() < deadline) {
        Thread.sleep(50);
      }
      assertEquals(50, receiver.byTask.size(), "every task of the graph ran");
      for (int i = 0; i < 50; i++) {
        assertEquals(1, receiver.calls(ids[i]), "task " + i + " ran once");
      }
      for (Map.Entry<Integer, List<Integer>> e : parentsOf.entrySet()) {
        long childArrived = receiver.byTask.get(ids[e.getKey()]).get(0).arrivedAtMs();
        for (int p : e.getValue()) {
          long parentArrived = receiver.byTask.get(ids[p]).get(0).arrivedAtMs();
          assertTrue(parentArrived <= childArrived, "task " + e.getKey() + " ran before its parent " + p);
        }
      }
      // The receiver notes a call before it answers, and ax writes SUCCESS after the answer: wait for it.
      JsonObject last = awaitStatus(api, Long.toString(ids[49]), "SUCCESS", 5_000);
      assertEquals(2, last.getJsonArray("depends_on").size());
      long worst = 0;
      for (int i = 1; i < 50; i++) {
        long release = 0;
        for (int p : parentsOf.get(i)) {
          release = Math.max(release, receiver.byTask.get(ids[p]).get(0).arrivedAtMs());
        }
        worst = Math.max(worst, receiver.byTask.get(ids[i]).get(0).arrivedAtMs() - release);
      }
      System.out.printf("graph of 50: worst parent call -> child call %d ms%n", worst);
      assertTrue(worst < 5_000, "children are let go through the leader's wheel, not found by the recovery scan: "
          + worst + " ms");
    }
  }

  @Test
  void referencesMustPointBackwardsAndToItemsThatWereCreated() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 1, Map.of())) {
      ApiClient api = ax.api(0);
      JsonArray items = new JsonArray()
          .add(call(receiver, "it.ref").put("delay_ms", 600_000))
          .add(call(receiver, "it.ref").put("depends_on", new JsonArray().add("#1")))
          .add(call(receiver, "it.ref").put("depends_on", new JsonArray().add("#5")))
          .add(new JsonObject().put("task_type", "it.ref"))
          .add(call(receiver, "it.ref").put("depends_on", new JsonArray().add("#3")))
          .add(call(receiver, "it.ref").put("depends_on", new JsonArray().add("#0").add("1")));
      JsonArray results = api.post("/openapi/v1/tasks/batch", new JsonObject().put("tasks", items).encode())
          .body().getJsonArray("results");
      assertEquals(201, results.getJsonObject(0).getInteger("status_code"));
      for (int i : new int[] {1, 2, 3, 4, 5}) {
        assertEquals(400, results.getJsonObject(i).getInteger("status_code"), results.getJsonObject(i).encode());
      }
      assertTrue(results.getJsonObject(1).getJsonObject("error").getString("detail").contains("earlier item"));
      assertTrue(results.getJsonObject(4).getJsonObject("error").getString("detail").contains("was not created"));
      assertTrue(results.getJsonObject(5).getJsonObject("error").getString("detail").contains("no task 1"));
      ApiClient.Reply single = api.submit(call(receiver, "it.ref").put("depends_on", new JsonArray().add("#0")));
      assertEquals(400, single.status());
      assertTrue(single.body().getString("detail").startsWith("depends_on:"), single.raw().body());
    }
  }
}
