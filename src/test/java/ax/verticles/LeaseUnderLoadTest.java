package ax.verticles;

import ax.bus.Addresses;
import ax.dispatch.OutcomeBacklog;
import ax.leader.LeaderTerm;
import ax.metrics.AxMetrics;
import ax.store.Database;
import ax.store.LeaseStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.sqlclient.Pool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LeaderVerticle on a real PostgreSQL while the node's data pool is saturated, as in a burst (every
 * connection busy, a queue behind them): on that pool the renewal waits in the queue past the TTL and the
 * leader steps down; on the control pool ({@link Database#controlPool}, where AxNode puts the lease) it
 * keeps leading. The first case is the failure the bench's {@code failover} scenario found.
 */
@ExtendWith(VertxExtension.class)
class LeaseUnderLoadTest {
  private static final long TTL_MS = 1_500;
  private static final int BUSY_FOR_S = 5;

  private VerticleDatabase db;
  private Pool control;
  private final List<LeaderTerm> terms = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp(Vertx vertx) {
    db = VerticleDatabase.create(vertx); // a data pool of 4
    control = Database.controlPool(vertx, db.options);
    vertx.eventBus().<LeaderTerm>localConsumer(Addresses.LEADER_CHANGED, msg -> terms.add(msg.body()));
  }

  @AfterEach
  void tearDown(Vertx vertx) throws Exception {
    for (String id : vertx.deploymentIDs()) {
      vertx.undeploy(id).await(10, TimeUnit.SECONDS);
    }
    control.close().await(10, TimeUnit.SECONDS);
    db.close();
  }

  @Test
  void onTheDataPoolABurstMakesTheLeaderStepDown(Vertx vertx) throws Exception {
    leadThenSaturate(vertx, db.pool);
    assertTrue(terms.size() >= 2 && !terms.get(1).leader(),
        "the renewal queued behind the burst for more than the TTL, so the leader stepped down — while it "
            + "was still unanswered: " + terms);
  }

  @Test
  void onTheControlPoolTheLeaderKeepsItsLeaseThroughTheBurst(Vertx vertx) throws Exception {
    leadThenSaturate(vertx, control);
    assertEquals(1, terms.size(), "one term, never left: " + terms);
    assertTrue(terms.get(0).leader());
  }

  /** Deploys a leader on {@code leasePool}, waits for its term, then keeps every data connection busy for 5 s. */
  private void leadThenSaturate(Vertx vertx, Pool leasePool) throws Exception {
    // both pools connected and the statements' classes loaded: a cold first acquisition must not eat the TTL
    db.pool.query("SELECT 1").execute().await(10, TimeUnit.SECONDS);
    control.query("SELECT 1").execute().await(10, TimeUnit.SECONDS);
    new LeaseStore(leasePool).current(LeaseStore.SCHEDULER).await(10, TimeUnit.SECONDS);
    vertx.deployVerticle(new LeaderVerticle(new LeaseStore(leasePool), new OutcomeBacklog(10),
            new AxMetrics(new SimpleMeterRegistry()),
            new LeaderVerticle.Settings(LeaseStore.SCHEDULER, "node-a/1", null, TTL_MS)))
        .await(10, TimeUnit.SECONDS);
    long deadline = System.currentTimeMillis() + 5_000;
    while (terms.isEmpty()) {
      assertTrue(System.currentTimeMillis() < deadline, "no term within 5 s");
      Thread.sleep(10);
    }
    assertTrue(terms.get(0).leader(), "leads first: " + terms);
    // the burst: more statements than connections, each holding its connection for 4 s
    for (int i = 0; i < 12; i++) {
      db.pool.query("SELECT pg_sleep(" + BUSY_FOR_S + ")").execute();
    }
    Thread.sleep(BUSY_FOR_S * 1_000L - 500); // over two TTLs, all of it with the data pool saturated
  }
}
