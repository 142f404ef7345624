package ax.e2e;

import ax.signing.OutboundSignature;
import ax.testing.TestPostgres;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Webhooks end to end (issue 13, R7): a node from the jar, a real HTTP receiver, the signed API. Tries
 * are signed, spaced by the backoff, at most three, recorded and readable; a notification owed when the
 * node is killed is delivered after it restarts.
 */
class WebhookIT {
  /** A webhook receiver: answers 500 to the first {@code failures} calls, then 200; records each call. */
  static final class Hooks implements AutoCloseable {
    record Call(long arrivedAtMs, String signature, String taskIdHeader, JsonObject body, boolean signedRight) {
    }

    private final Vertx vertx = Vertx.vertx();
    private final HttpServer server;
    final List<Call> calls = new CopyOnWriteArrayList<>();
    private final AtomicInteger seen = new AtomicInteger();

    Hooks(int failures) {
      server = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(buf -> {
        String sig = req.getHeader("x-ax-signature");
        boolean ok = sig != null && OutboundSignature.verify(AxCluster.SECRET, sig, buf.getBytes(), System.currentTimeMillis(),
            300_000);
        calls.add(new Call(System.currentTimeMillis(), sig, req.getHeader("x-ax-task-id"), buf.toJsonObject(), ok));
        req.response().setStatusCode(seen.incrementAndGet() <= failures ? 500 : 200).end("{}");
      })).listen(0, "127.0.0.1").await();
    }

    String url() {
      return "http://127.0.0.1:" + server.actualPort() + "/done";
    }

    void awaitCalls(int n, long timeoutMs) throws InterruptedException {
      long deadline = System.currentTimeMillis() + timeoutMs;
      while (calls.size() < n && System.currentTimeMillis() < deadline) {
        Thread.sleep(20);
      }
      assertTrue(calls.size() >= n, "expected " + n + " webhook calls, got " + calls.size());
    }

    @Override
    public void close() {
      vertx.close().await();
    }
  }

  private static JsonObject task(Receiver target, String type, Hooks hooks) {
    return new JsonObject().put("task_type", type).put("callback_url", target.url()).put("max_retry", 0)
        .put("notify_url", hooks.url()).put("dedupe", false);
  }

  private static JsonObject notifications(ApiClient api, String id, String state, long timeoutMs) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    JsonObject n = api.get("/openapi/v1/tasks/" + id + "/notifications").body();
    while (!state.equals(n.getString("state")) && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
      n = api.get("/openapi/v1/tasks/" + id + "/notifications").body();
    }
    assertEquals(state, n.getString("state"), n.encode());
    return n;
  }

  @Test
  void aReceiverThatFailsTwiceGetsThreeSignedTriesSpacedByTheBackoff() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver target = new Receiver(); Hooks hooks = new Hooks(2);
         AxCluster ax = AxCluster.start(pg, 1, Map.of("AX_WEBHOOK_BACKOFF_MS", "300"))) {
      ApiClient api = ax.api(0);
      ApiClient.Reply created = api.submit(task(target, "it.hook", hooks).put("payload", new JsonObject().put("n", 1)));
      assertEquals(201, created.status(), created.raw().body());
      String id = created.body().getString("task_id");
      assertEquals(hooks.url(), api.get("/openapi/v1/tasks/" + id).body().getString("notify_url"));

      hooks.awaitCalls(3, 15_000);
      JsonObject n = notifications(api, id, "DELIVERED", 5_000);
      JsonArray items = n.getJsonArray("items");
      FaultRow.record("webhook-failure", Map.of("tries", hooks.calls.size(), "recorded_tries", items.size(),
              "undelivered_without_record", Math.abs(hooks.calls.size() - items.size()),
              "unsigned", hooks.calls.stream().filter(c -> !c.signedRight()).count(), "state", n.getString("state")),
          "a webhook receiver answering 500 twice then 200: three signed tries spaced by the backoff, each recorded, "
              + "DELIVERED");
      assertEquals(3, n.getInteger("tries"));
      assertEquals(List.of(500, 500, 200), items.stream().map(o -> ((JsonObject) o).getInteger("http_status")).toList());
      assertEquals(List.of("FAILED", "FAILED", "DELIVERED"),
          items.stream().map(o -> ((JsonObject) o).getString("outcome")).toList());
      for (WebhookIT.Hooks.Call c : hooks.calls) {
        assertTrue(c.signedRight(), "signed with the key's secret: " + c.signature());
        assertEquals(id, c.taskIdHeader());
        JsonObject body = c.body();
        assertEquals(id, body.getString("task_id"));
        assertEquals("it.hook", body.getString("task_type"));
        assertEquals("SUCCESS", body.getString("status"));
        assertEquals(1, body.getInteger("attempts"));
        assertTrue(body.containsKey("result") && body.containsKey("error") && body.containsKey("finished_at"));
      }
      long first = hooks.calls.get(1).arrivedAtMs() - hooks.calls.get(0).arrivedAtMs();
      long second = hooks.calls.get(2).arrivedAtMs() - hooks.calls.get(1).arrivedAtMs();
      assertTrue(first >= 300, "backoff after the first failure: " + first + " ms");
      assertTrue(second >= 1_200, "four times the backoff after the second: " + second + " ms");
      Thread.sleep(1_000);
      assertEquals(3, hooks.calls.size(), "nothing after a delivery");
      assertTrue(ax.metrics(0).contains("ax_webhook_deliveries_total{outcome=\"delivered\"} 1.0"));
    }
  }

  @Test
  void aReceiverThatAlwaysFailsGetsThreeTriesAndTheTaskRecordsIt() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver target = new Receiver();
         Hooks hooks = new Hooks(Integer.MAX_VALUE);
         AxCluster ax = AxCluster.start(pg, 1, Map.of("AX_WEBHOOK_BACKOFF_MS", "100"))) {
      ApiClient api = ax.api(0);
      String id = api.submit(task(target, "it.hook.fail", hooks)).body().getString("task_id");
      JsonObject n = notifications(api, id, "FAILED", 15_000);
      Thread.sleep(1_000);
      FaultRow.record("webhook-failure", Map.of("tries", hooks.calls.size(),
              "recorded_tries", n.getJsonArray("items").size(),
              "undelivered_without_record", Math.abs(hooks.calls.size() - n.getJsonArray("items").size()),
              "state", n.getString("state")),
          "a webhook receiver that always answers 500: three tries, each recorded, the notification FAILED");
      assertEquals(3, n.getJsonArray("items").size());
      assertNull(n.getValue("next_attempt_at"));
      Thread.sleep(1_000);
      assertEquals(3, hooks.calls.size(), "at most three tries");
      assertEquals("FAILED", hooks.calls.get(0).body().getString("status"), "the task's own status is announced");
    }
  }

  @Test
  void aNotificationOwedWhenTheNodeIsKilledIsDeliveredAfterItRestarts() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver target = new Receiver(); Hooks hooks = new Hooks(0);
         AxCluster ax = AxCluster.start(pg, 1, Map.of("AX_WEBHOOK_POLL_MS", "60000"))) {
      ApiClient api = ax.api(0);
      String id = api.submit(task(target, "it.hook", hooks)).body().getString("task_id");
      // The task ends; the first delivery round already ran at the term's start, the next is a minute away.
      long deadline = System.currentTimeMillis() + 10_000;
      while (!"SUCCESS".equals(api.get("/openapi/v1/tasks/" + id).body().getString("status"))
          && System.currentTimeMillis() < deadline) {
        Thread.sleep(50);
      }
      assertEquals("PENDING", api.get("/openapi/v1/tasks/" + id + "/notifications").body().getString("state"));
      assertEquals(0, hooks.calls.size());
      ax.nodes.get(0).killHard();

      long restartedAt = System.currentTimeMillis();
      ax.restart(0, Map.of("AX_WEBHOOK_POLL_MS", "200"));
      long deadline2 = System.currentTimeMillis() + 20_000;
      while (hooks.calls.isEmpty() && System.currentTimeMillis() < deadline2) {
        Thread.sleep(20);
      }
      FaultRow.record("restart", Map.of("lost", hooks.calls.isEmpty() ? 1 : 0,
              "run_twice", Math.max(0, hooks.calls.size() - 1),
              "catch_up_ms", System.currentTimeMillis() - restartedAt),
          "a webhook owed when the node was killed (kill -9) was delivered once after the restart");
      hooks.awaitCalls(1, 20_000);
      notifications(ax.api(0), id, "DELIVERED", 5_000);
      assertEquals(id, hooks.calls.get(0).body().getString("task_id"));
    }
  }

  @Test
  void aNotifyUrlOutsideTheAllowListOrPointingInsideIsRefusedAtSubmission() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver target = new Receiver(); Hooks hooks = new Hooks(0);
         AxCluster ax = AxCluster.start(pg, 1, Map.of())) {
      ApiClient api = ax.api(0);
      String[] urls = {"http://169.254.169.254/latest/meta-data", "http://10.0.0.1/hook",
          "http://example.com/hook", "ftp://127.0.0.1/x"};
      List<ApiClient.Reply> replies = new java.util.ArrayList<>();
      for (String url : urls) {
        replies.add(api.submit(task(target, "it.hook", hooks).put("notify_url", url)));
      }
      FaultRow.record("ssrf", Map.of("ssrf_accepted", replies.stream().filter(r -> r.status() / 100 == 2).count(),
              "addresses_tried", urls.length),
          "notify_url at the metadata address, a private address, a name outside the allow-list, an ftp URL: each "
              + "refused 400 at submission (no canary; the send-time check is not exercised here)");
      for (String url : urls) {
        ApiClient.Reply r = replies.get(java.util.Arrays.asList(urls).indexOf(url));
        assertEquals(400, r.status(), url + " " + r.raw().body());
        assertTrue(r.body().getString("detail").startsWith("notify_url:"), r.raw().body());
      }
    }
  }
}
