package ax.store;

import ax.leader.Fence;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Transaction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LeaseStoreTest {
  /** Long enough that "not done yet" means "waiting for a lock", not "slow". */
  private static final long BLOCKED_MS = 400;

  private static StoreFixture db;
  private static LeaseStore leases;

  @BeforeAll
  static void setUp() {
    db = new StoreFixture();
    leases = new LeaseStore(db.pool);
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  @Test
  void onlyOneHolderAtATimeAndEveryNewTermBumpsTheEpoch() {
    long e1 = leases.tryAcquire("l1", "a", "member-a", 30_000).await().orElseThrow();
    assertTrue(leases.tryAcquire("l1", "b", "member-b", 30_000).await().isEmpty(), "b cannot take an unexpired lease");
    assertTrue(leases.renew("l1", "a", e1, 30_000).await());
    assertFalse(leases.renew("l1", "b", e1, 30_000).await(), "only the holder renews");
    assertTrue(leases.resign("l1", "a", e1).await());
    long e2 = leases.tryAcquire("l1", "b", "member-b", 30_000).await().orElseThrow();
    assertEquals(e1 + 1, e2);
    assertFalse(leases.renew("l1", "a", e1, 30_000).await(), "the old term cannot be renewed");
    var terms = db.pool.query("SELECT epoch, holder, member FROM lease_terms WHERE name = 'l1' ORDER BY epoch")
        .execute().await();
    assertEquals(2, terms.rowCount(), "every term is recorded with its holder and cluster member");
    var first = terms.iterator().next();
    assertEquals(e1, first.getLong("epoch"));
    assertEquals("a", first.getString("holder"));
    assertEquals("member-a", first.getString("member"));
  }

  @Test
  void anExpiredLeaseCanBeTakenOverButNotRenewed() throws Exception {
    long e1 = leases.tryAcquire("l2", "a", "member-a", 1_000).await().orElseThrow();
    Thread.sleep(1_100); // real database time must pass; this is an integration test
    assertFalse(leases.renew("l2", "a", e1, 1_000).await());
    assertEquals(e1 + 1, leases.tryAcquire("l2", "b", "member-b", 1_000).await().orElseThrow());
  }

  @Test
  void nodeSlotsAreNeverHandedToTwoLiveHolders() {
    NodeSlotStore slots = new NodeSlotStore(db.pool);
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 20; i++) {
      int slot = slots.tryAcquire("holder-" + i, 60_000).await().orElseThrow();
      assertTrue(seen.add(slot), "slot " + slot + " handed out twice");
    }
    assertTrue(seen.contains(0), "the lowest free slot is taken first");
    assertTrue(slots.renew(0, "holder-0", 60_000).await());
    assertFalse(slots.renew(0, "holder-1", 60_000).await(), "only the holder renews its slot");
  }

  /** A write of the kind every store makes: it changes the probe row only while {@code fence} holds the lease. */
  private static Future<Integer> fencedWrite(SqlConnection connection, Fence fence) {
    Sql write = Sql.of("WITH " + Sql.LEASE + """
        UPDATE fence_probe p SET epoch = lease.epoch FROM lease""");
    return connection.preparedQuery(write.text()).execute(write.params().fence(fence).tuple())
        .map(rows -> rows.rowCount());
  }

  /**
   * The lease fence ({@link Sql#LEASE}) while statements of two terms overlap: a write of the old term that
   * passed the fence holds a takeover back until it has committed (so nothing of the old term commits after
   * the new term began), and once the new term holds the lease the old term's fenced writes change nothing.
   * (A weaker lock, FOR KEY SHARE without epoch as a key column, fails this test: the takeover commits at once.)
   */
  @Test
  void aTakeoverWaitsForTheOldTermsWriteInFlightAndAfterItTheOldTermWritesNothing() throws Exception {
    db.pool.query("CREATE TABLE fence_probe (id int PRIMARY KEY, epoch bigint)").execute().await();
    db.pool.query("INSERT INTO fence_probe VALUES (1, 0)").execute().await();
    long ttlMs = 600;
    Fence old = new Fence("fence-1", "a", leases.tryAcquire("fence-1", "a", "member-a", ttlMs).await().orElseThrow());
    SqlConnection connection = db.pool.getConnection().await();
    try {
      Transaction tx = connection.begin().await();
      assertEquals(1, fencedWrite(connection, old).await(), "the holder's write passes the fence");
      Thread.sleep(ttlMs + 100); // the lease runs out while that write's transaction is still open

      Future<Optional<Long>> takeover = leases.tryAcquire("fence-1", "b", "member-b", 30_000);
      Thread.sleep(BLOCKED_MS);
      assertFalse(takeover.isComplete(), "the takeover must wait until the old term's write has committed");

      tx.commit().await();
      long epoch = takeover.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
      assertEquals(old.epoch() + 1, epoch, "b takes over once a's write committed");
      assertEquals(0, fencedWrite(connection, old).await(), "the old term's writes change nothing after the takeover");
      assertEquals(1, fencedWrite(connection, new Fence("fence-1", "b", epoch)).await());
    } finally {
      connection.close().await();
    }
  }
}
