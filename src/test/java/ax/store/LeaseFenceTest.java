package ax.store;

import ax.leader.Fence;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Transaction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * What the lease fence ({@link Sql#LEASE}) promises while statements of two terms overlap, against a
 * real PostgreSQL: a write of the old term that passed the fence holds a takeover back until it has
 * committed (so nothing of the old term commits after the new term began), and once the new term holds
 * the lease the old term's fenced writes change nothing. (A weaker lock, FOR KEY SHARE without epoch as
 * a key column, fails this test: the takeover commits at once.)
 */
class LeaseFenceTest {
  /** Long enough that "not done yet" means "waiting for a lock", not "slow". */
  private static final long BLOCKED_MS = 400;

  private static StoreFixture db;
  private static LeaseStore leases;

  @BeforeAll
  static void setUp() {
    db = new StoreFixture();
    leases = new LeaseStore(db.pool);
    db.pool.query("CREATE TABLE fence_probe (id int PRIMARY KEY, epoch bigint)").execute().await();
    db.pool.query("INSERT INTO fence_probe VALUES (1, 0)").execute().await();
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  /** A write of the kind every store makes: it changes row {@code id} only while {@code fence} holds the lease. */
  private static Future<Integer> fencedWrite(SqlConnection connection, Fence fence, int id) {
    Sql write = Sql.of("WITH " + Sql.LEASE + """
        UPDATE fence_probe p SET epoch = lease.epoch FROM lease WHERE p.id = :id""");
    return connection.preparedQuery(write.text()).execute(write.params().fence(fence).set("id", id).tuple())
        .map(rows -> rows.rowCount());
  }

  @Test
  void aTakeoverWaitsForTheOldTermsWriteInFlightAndAfterItTheOldTermWritesNothing() throws Exception {
    long ttlMs = 600;
    Fence old = new Fence("fence-1", "a", leases.tryAcquire("fence-1", "a", "member-a", ttlMs).await().orElseThrow());
    SqlConnection connection = db.pool.getConnection().await();
    try {
      Transaction tx = connection.begin().await();
      assertEquals(1, fencedWrite(connection, old, 1).await(), "the holder's write passes the fence");
      Thread.sleep(ttlMs + 100); // the lease runs out while that write's transaction is still open

      Future<Optional<Long>> takeover = leases.tryAcquire("fence-1", "b", "member-b", 30_000);
      Thread.sleep(BLOCKED_MS);
      assertFalse(takeover.isComplete(), "the takeover must wait until the old term's write has committed");

      tx.commit().await();
      long epoch = takeover.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
      assertEquals(old.epoch() + 1, epoch, "b takes over once a's write committed");
      assertEquals(0, fencedWrite(connection, old, 1).await(), "the old term's writes change nothing after the takeover");
      assertEquals(1, fencedWrite(connection, new Fence("fence-1", "b", epoch), 1).await());
    } finally {
      connection.close().await();
    }
  }
}
