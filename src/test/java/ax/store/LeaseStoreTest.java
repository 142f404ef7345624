package ax.store;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LeaseStoreTest {
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
}
