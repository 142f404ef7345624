package ax.verticles;

import ax.bus.Addresses;
import ax.dispatch.OutcomeBacklog;
import ax.leader.LeaderTerm;
import ax.metrics.AxMetrics;
import ax.store.Database;
import ax.store.LeaseStore;
import ax.testing.TcpProxy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LeaderVerticle on a real PostgreSQL reached through a {@link TcpProxy} that the test cuts (connections
 * reset, connects refused: the database restarting). A cut that spans a renewal but ends well inside
 * TTL − margin leaves the leader in its term — the failed renewal is retried, not taken for a refusal. A
 * cut longer than that still makes it step down before its lease can expire, and it leads again, in a new
 * epoch, once the database is back and the lease has run out.
 */
@ExtendWith(VertxExtension.class)
class LeaseThroughDatabaseOutageTest {
  /** Renewals every 3 s; the watchdog steps down 8.1 s after the last confirmed one was sent. */
  private static final long TTL_MS = 9_000;

  private VerticleDatabase db;
  private TcpProxy proxy;
  private Pool proxied;
  private final List<LeaderTerm> terms = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp(Vertx vertx) {
    db = VerticleDatabase.create(vertx);
    proxy = new TcpProxy(db.options.getHost(), db.options.getPort());
    proxied = Database.controlPool(vertx, new PgConnectOptions(db.options).setHost("127.0.0.1").setPort(proxy.port()));
    vertx.eventBus().<LeaderTerm>localConsumer(Addresses.LEADER_CHANGED, msg -> terms.add(msg.body()));
  }

  @AfterEach
  void tearDown(Vertx vertx) throws Exception {
    for (String id : vertx.deploymentIDs()) {
      vertx.undeploy(id).await(10, TimeUnit.SECONDS);
    }
    proxied.close().await(10, TimeUnit.SECONDS);
    proxy.close();
    db.close();
  }

  @Test
  void aDatabaseGoneForOneRenewalKeepsTheLeaderInItsTerm(Vertx vertx, VertxTestContext ctx) throws Exception {
    long ledAt = lead(vertx, ctx);
    // gone from 1 s after the term began to 4.5 s: the renewal due at 3 s fails, the retries until the
    // cut ends fail too, and the last confirmed renewal (at 0 s) stays younger than the watchdog's 8.1 s
    sleepUntil(ledAt + 1_000);
    proxy.cut();
    sleepUntil(ledAt + 4_500);
    proxy.restore();
    sleepUntil(ledAt + 10_000); // past the first term's expiry had no renewal been confirmed after the cut
    assertEquals(1, terms.size(), "one term, never left: " + terms);
    assertTrue(terms.get(0).leader());
    assertEquals(terms.get(0).epoch(), currentEpoch(), "the database still has the first term");
  }

  @Test
  void aDatabaseGonePastTheMarginMakesTheLeaderStepDownThenLeadAgain(Vertx vertx, VertxTestContext ctx)
      throws Exception {
    long ledAt = lead(vertx, ctx);
    sleepUntil(ledAt + 1_000);
    proxy.cut();
    sleepUntil(ledAt + 10_000); // the lease, last renewed at 0 s, has expired on the database clock
    assertTrue(terms.size() >= 2 && !terms.get(1).leader(), "stepped down while the database was gone: " + terms);
    proxy.restore();
    long deadline = System.currentTimeMillis() + 5_000;
    while (!terms.get(terms.size() - 1).leader()) {
      assertTrue(System.currentTimeMillis() < deadline, "leads again once the database is back: " + terms);
      Thread.sleep(20);
    }
    LeaderTerm again = terms.get(terms.size() - 1);
    assertEquals(terms.get(0).epoch() + 1, again.epoch(), "a new term: " + terms);
    assertFalse(terms.subList(1, terms.size() - 1).stream().anyMatch(LeaderTerm::leader), terms.toString());
  }

  /** Deploys the leader on the proxied pool and returns when (wall clock) its first term began. */
  private long lead(Vertx vertx, VertxTestContext ctx) throws Exception {
    proxied.query("SELECT 1").execute().await(10, TimeUnit.SECONDS); // connected: the first try must not be cold
    vertx.deployVerticle(new LeaderVerticle(new LeaseStore(proxied), new OutcomeBacklog(10),
            new AxMetrics(new SimpleMeterRegistry()),
            new LeaderVerticle.Settings(LeaseStore.SCHEDULER, "node-a/1", null, TTL_MS)))
        .onComplete(ctx.succeedingThenComplete());
    assertTrue(ctx.awaitCompletion(10, TimeUnit.SECONDS), "deployed");
    long deadline = System.currentTimeMillis() + 5_000;
    while (terms.isEmpty()) {
      assertTrue(System.currentTimeMillis() < deadline, "no term within 5 s");
      Thread.sleep(5);
    }
    assertTrue(terms.get(0).leader(), "leads first: " + terms);
    return System.currentTimeMillis();
  }

  private long currentEpoch() throws Exception {
    return new LeaseStore(db.pool).current(LeaseStore.SCHEDULER).await(10, TimeUnit.SECONDS).orElseThrow().epoch();
  }

  private static void sleepUntil(long atMs) throws InterruptedException {
    Thread.sleep(Math.max(0, atMs - System.currentTimeMillis()));
  }
}
