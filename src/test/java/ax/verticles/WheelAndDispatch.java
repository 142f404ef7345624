package ax.verticles;

import ax.api.auth.ApiKeyCache;
import ax.bus.Addresses;
import ax.clock.DbClock;
import ax.dispatch.ClaimGate;
import ax.dispatch.DispatchLoad;
import ax.dispatch.OutcomeBacklog;
import ax.http.CallbackUrlPolicy;
import ax.http.HostResolver;
import ax.http.HttpTargetInvoker;
import ax.metrics.AxMetrics;
import ax.store.ApiKeyStore;
import ax.store.ScheduleStore;
import ax.task.OutcomePolicy;
import ax.task.RetryBackoff;
import ax.tracing.AxTracing;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scheduling half of a leader for verticle tests: a WheelVerticle and a DispatchVerticle claiming
 * {@code leadMs} ahead, on a {@link VerticleDatabase} with tenant {@code tenant-a} and key {@code key-a},
 * calling a real HTTP receiver on 127.0.0.1 that answers 200 and reports each call's task id.
 */
final class WheelAndDispatch {
  private WheelAndDispatch() {
  }

  /** Deploys both verticles behind a receiver; answers the receiver (its port is the callback URL's). */
  static Future<HttpServer> deploy(Vertx vertx, VerticleDatabase db, String secret, long leadMs, LongConsumer calls) {
    OutcomeBacklog backlog = new OutcomeBacklog(1_000);
    return deploy(vertx, db, secret, leadMs, calls, backlog, new DispatchLoad(backlog));
  }

  /** The same, the dispatcher counting its due work in {@code load} (made over {@code backlog}). */
  static Future<HttpServer> deploy(Vertx vertx, VerticleDatabase db, String secret, long leadMs, LongConsumer calls,
                                   OutcomeBacklog backlog, DispatchLoad load) {
    ApiKeyStore keys = new ApiKeyStore(db.pool, null);
    db.tenantWithKey("tenant-a", "key-a", secret);
    DbClock clock = DbClock.system();
    clock.anchorMillis(System.currentTimeMillis(), System.nanoTime()); // same machine as the database
    AxMetrics metrics = new AxMetrics(new SimpleMeterRegistry());
    HttpTargetInvoker invoker = new HttpTargetInvoker(vertx, vertx.createHttpClient(),
        new CallbackUrlPolicy(List.of("127.0.0.1")), new HostResolver(vertx));
    ScheduleStore store = new ScheduleStore(db.pool, "node-a");
    HttpServer receiver = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(body -> {
      calls.accept(Long.parseLong(new JsonObject(body).getString("task_id")));
      req.response().setStatusCode(200).end("{}");
    }));
    return receiver.listen(0, "127.0.0.1")
        .compose(s -> vertx.deployVerticle(new WheelVerticle(store, clock,
            new WheelVerticle.Settings(10, 512, 10_000, 60_000, 100, 1_000, 10_000, 200, leadMs), metrics)))
        .compose(id -> vertx.deployVerticle(new DispatchVerticle(store, clock, invoker, new ApiKeyCache(keys),
            new OutcomePolicy(RetryBackoff.defaults()), backlog, metrics,
            DispatchVerticle.Settings.of(200, 5, leadMs), AxTracing.OFF, new ClaimGate(), load)))
        .map(receiver);
  }

  /** Polls the wheel's counters ({@link Addresses#WHEEL_STATS}) until {@code until} holds, for 10 s. */
  static JsonObject awaitWheel(Vertx vertx, Predicate<JsonObject> until, String what) throws Exception {
    long deadline = System.currentTimeMillis() + 10_000;
    while (true) {
      JsonObject stats = vertx.eventBus().<JsonObject>request(Addresses.WHEEL_STATS, null)
          .await(5, TimeUnit.SECONDS).body();
      if (until.test(stats)) {
        return stats;
      }
      assertTrue(System.currentTimeMillis() < deadline, what + ": " + stats);
      Thread.sleep(20);
    }
  }
}
