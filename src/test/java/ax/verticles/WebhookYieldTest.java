package ax.verticles;

import ax.api.auth.ApiKeyCache;
import ax.bus.Addresses;
import ax.bus.LocalCodec;
import ax.clock.DbClock;
import ax.dispatch.DispatchLoad;
import ax.dispatch.OutcomeBacklog;
import ax.http.CallbackUrlPolicy;
import ax.http.HostResolver;
import ax.http.HttpTargetInvoker;
import ax.metrics.AxMetrics;
import ax.store.ApiKeyStore;
import ax.store.TaskStore;
import ax.store.WebhookStore;
import ax.task.NewTask;
import ax.task.TaskStatus;
import ax.tracing.AxTracing;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * WebhookVerticle leading on a real PostgreSQL, posting to a real receiver, while the node's dispatchers
 * hold a burst ({@link DispatchLoad}): delivery waits until the burst is drained, and under a load that
 * stays, no longer than {@code AX_WEBHOOK_YIELD_MS}.
 */
@ExtendWith(VertxExtension.class)
class WebhookYieldTest {
  private static final int BUSY_AT = 1_000;

  private VerticleDatabase db;
  private TaskStore tasks;
  private DispatchLoad load;
  private HttpServer receiver;
  /** task id → when its webhook arrived (System.currentTimeMillis) */
  private final ConcurrentHashMap<Long, Long> arrived = new ConcurrentHashMap<>();

  @BeforeEach
  void receiver(Vertx vertx) throws Exception {
    db = VerticleDatabase.create(vertx);
    db.tenantWithKey("tenant-a", "key-a", "webhook-secret-0123456789");
    tasks = new TaskStore(db.pool);
    load = new DispatchLoad(new OutcomeBacklog(100));
    receiver = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(body -> {
      arrived.putIfAbsent(Long.parseLong(new JsonObject(body).getString("task_id")), System.currentTimeMillis());
      req.response().setStatusCode(200).end();
    })).listen(0, "127.0.0.1").await(5, TimeUnit.SECONDS);
  }

  @AfterEach
  void close(Vertx vertx) throws Exception {
    // the verticle first: it polls the pool until undeployed
    for (String id : vertx.deploymentIDs()) {
      vertx.undeploy(id).await(10, TimeUnit.SECONDS);
    }
    db.close();
  }

  private void deployLeading(Vertx vertx, long yieldMs) throws Exception {
    DbClock clock = DbClock.system();
    clock.anchorMillis(System.currentTimeMillis(), System.nanoTime()); // same machine as the database
    HttpTargetInvoker sender = new HttpTargetInvoker(vertx, vertx.createHttpClient(),
        new CallbackUrlPolicy(List.of("127.0.0.1")), new HostResolver(vertx));
    vertx.deployVerticle(new WebhookVerticle(new WebhookStore(db.pool, "node-a"), sender,
        new ApiKeyCache(new ApiKeyStore(db.pool, null)), clock, new AxMetrics(new SimpleMeterRegistry()),
        new WebhookVerticle.Settings(50, 256, 2_000, 100, yieldMs, BUSY_AT), AxTracing.OFF, load))
        .await(10, TimeUnit.SECONDS);
    vertx.eventBus().publish(Addresses.LEADER_CHANGED, db.leadScheduler("node-a/1"), LocalCodec.localOnly());
  }

  /** A task with notify_url that ends SUCCESS now: its notification is due at once. */
  private long settledWithWebhook(long id) throws Exception {
    tasks.insert(new NewTask(id, "tenant-a", "key-a", "yield.test", System.currentTimeMillis(), TaskStatus.READY, 5,
        0, 5_000, "http://127.0.0.1:9/hook", null, "{}", null, 1,
        "http://127.0.0.1:" + receiver.actualPort() + "/done", null)).await(10, TimeUnit.SECONDS);
    db.pool.query("UPDATE tasks SET status = 'SUCCESS', finished_at = now() WHERE task_id = " + id).execute()
        .await(10, TimeUnit.SECONDS);
    return System.currentTimeMillis();
  }

  private long awaitArrival(long id, long withinMs) throws InterruptedException {
    long deadline = System.currentTimeMillis() + withinMs;
    while (!arrived.containsKey(id)) {
      assertTrue(System.currentTimeMillis() < deadline, "webhook of task " + id + " not delivered in " + withinMs + " ms");
      Thread.sleep(10);
    }
    return arrived.get(id);
  }

  @Test
  void aBurstInHandHoldsWebhooksBackUntilItIsDrained(Vertx vertx) throws Exception {
    deployLeading(vertx, 60_000);
    long quiet = settledWithWebhook(81_001L);
    awaitArrival(81_001L, 5_000); // no burst: delivered within a poll or so
    assertTrue(arrived.get(81_001L) - quiet < 2_000, "took " + (arrived.get(81_001L) - quiet) + " ms");

    load.awaitingClaim(BUSY_AT); // the wheel handed the dispatchers a burst
    settledWithWebhook(81_002L);
    Thread.sleep(1_000); // 20 polls
    assertNull(arrived.get(81_002L), "delivered while the dispatchers held a burst");

    long drained = System.currentTimeMillis();
    load.awaitingClaim(-BUSY_AT);
    long at = awaitArrival(81_002L, 5_000);
    assertTrue(at - drained < 2_000, "delivered " + (at - drained) + " ms after the burst drained");
  }

  @Test
  void aLoadThatStaysDelaysThemByTheBoundAndNoLonger(Vertx vertx) throws Exception {
    deployLeading(vertx, 3_000);
    // The term's first poll starts a round at once, on a cold pool; a round already under way when the load
    // comes does not look at the load again, and a slow claim of it once picked up the webhook inserted
    // below (CI 2026-12-04: delivered 37 ms after the load). A few polls first, so that round is over.
    Thread.sleep(300);
    // The spell starts at the first poll that sees the load, never before this instant, so nothing can be
    // delivered before loaded + 3 s. Measured from here, not from the terminal transition: on a slow CI
    // machine the insert and update of a cold pool once took most of a shorter bound (delivered 24 ms
    // after the transition with the spell nearly spent).
    long loaded = System.currentTimeMillis();
    load.awaitingClaim(5 * BUSY_AT); // and it stays
    long settled = settledWithWebhook(82_001L);
    long at = awaitArrival(82_001L, 10_000);
    assertTrue(at - loaded >= 2_900, "delivered " + (at - loaded) + " ms after the load came, "
        + "before the 3 s yield ran out");
    assertTrue(at - Math.max(settled, loaded + 3_000) < 2_000, "delivered " + (at - loaded)
        + " ms after the load came, well past the 3 s bound");
    // the spell has waited its bound: from now on it delivers although the load stays
    long next = settledWithWebhook(82_002L);
    long nextAt = awaitArrival(82_002L, 5_000);
    assertTrue(nextAt - next < 2_000, "the second waited " + (nextAt - next) + " ms");
    assertEquals(2, arrived.size());
  }
}
