package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java example executor (examples/java-executor), built against the SDK artifact alone, run as a
 * team would run it — its own jar, configured from the environment — against a real node: its
 * processors run, a malformed task fails with the field named, and SIGTERM drains it cleanly.
 */
class JavaExampleExecutorIT {

  private static JsonObject await(ApiClient api, String id, String status) throws Exception {
    long deadline = System.currentTimeMillis() + 30_000;
    JsonObject task = api.get("/openapi/v1/tasks/" + id).body();
    while (!status.equals(task.getString("status")) && System.currentTimeMillis() < deadline) {
      Thread.sleep(100);
      task = api.get("/openapi/v1/tasks/" + id).body();
    }
    assertEquals(status, task.getString("status"), task.encode());
    return task;
  }

  private static String submit(ApiClient api, String processor, JsonObject payload, int maxRetry) throws Exception {
    ApiClient.Reply r = api.submit(new JsonObject().put("task_type", "billing").put("processor", processor)
        .put("payload", payload).put("max_retry", maxRetry).put("dedupe", false));
    assertEquals(201, r.status(), r.raw().body());
    return r.body().getString("task_id");
  }

  @Test
  void theExampleRunsItsProcessorsReportsFailuresAndDrainsOnSigterm() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); AxCluster ax = AxCluster.start(pg, 1, Map.of());
         ExecutorProcess billing = ExecutorProcess.javaExample("billing-1", AxCluster.token("billing-1"), ax.servers())) {
      ApiClient api = ax.api(0);
      JsonObject invoice = new JsonObject().put("invoice", "INV-9").put("currency", "EUR").put("lines",
          new JsonArray().add(new JsonObject().put("price", "9.90").put("qty", 2))
              .add(new JsonObject().put("price", "0.05").put("qty", 3)));
      String total = submit(api, "invoice.total", invoice, 2);
      String archive = submit(api, "invoice.archive", new JsonObject().put("invoice", "INV-9").put("ms", 50), 2);
      String broken = submit(api, "invoice.total", new JsonObject().put("lines", new JsonArray()
          .add(new JsonObject().put("price", "ten").put("qty", 1))), 0);

      JsonObject totalled = await(api, total, "SUCCESS");
      assertEquals("19.95", totalled.getJsonObject("result").getString("total"));
      assertEquals("INV-9", await(api, archive, "SUCCESS").getJsonObject("result").getString("archived"));
      String error = await(api, broken, "FAILED").getString("error");
      assertTrue(error.contains("lines[0].price"), error);

      // 143: the JVM's exit after SIGTERM, once its shutdown hook (the drain) has run
      assertEquals(143, billing.stopGracefully(Duration.ofSeconds(45)), billing.output());
      assertTrue(billing.output().contains("executor billing-1 drained: executed=3 failed=1"), billing.output());
    }
  }
}
