package ax.store;

import ax.alert.AlertNotice;
import ax.alert.AlertRule;
import ax.alert.AlertTracker;
import ax.alert.Observation.Sample;
import ax.alert.Throttle;
import ax.leader.Fence;
import io.vertx.sqlclient.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Built-in alerting's tables against a real PostgreSQL (V14): an episode starts once and ends once
 * whoever writes it, a deposed leader writes nothing, one node delivers at a time, tries are bounded,
 * and suppressed messages are summarised once.
 */
class AlertStoreTest {
  private static StoreFixture db;
  private static AlertStore alerts;
  private static LeaseStore leases;
  private Fence fence;

  private static final AlertTracker.Fire FIRE = new AlertTracker.Fire(AlertRule.EXECUTE_FAILURE_RATE_HIGH, "",
      new Sample(0.5, Map.of("target", "http"), "50 % of attempts fail"), 1_700_000_000_000L);
  private static final AlertTracker.Resolve RESOLVE = new AlertTracker.Resolve(AlertRule.EXECUTE_FAILURE_RATE_HIGH, "",
      0.02);

  @BeforeAll
  static void setUp() {
    db = new StoreFixture();
    alerts = new AlertStore(db.pool);
    leases = new LeaseStore(db.pool);
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  @BeforeEach
  void fresh() {
    db.pool.query("TRUNCATE alert_state, alert_notifications, alert_events, leases, lease_terms").execute().await();
    db.pool.query("UPDATE alert_delivery SET holder = NULL, held_until = '-infinity'").execute().await();
    long epoch = leases.tryAcquire("scheduler", "node-a/1", null, 30_000).await().orElseThrow();
    fence = new Fence("scheduler", "node-a/1", epoch);
  }

  private static long count(String sql) {
    return db.pool.query(sql).execute().await().iterator().next().getLong(0);
  }

  @Test
  void anEpisodeStartsOnceAndEndsOnceWhoeverWritesIt() {
    assertTrue(alerts.fire(fence, FIRE).await());
    assertFalse(alerts.fire(null, FIRE).await(), "already firing: a second writer starts nothing");
    assertEquals(1, count("SELECT count(*) FROM alert_notifications WHERE status = 'FIRING'"));
    assertEquals(List.of(new AlertStore.Firing("AxExecuteFailureRateHigh", "", 1_700_000_000_000L, 0.5)),
        alerts.firing().await());

    assertTrue(alerts.resolve(null, RESOLVE).await());
    assertFalse(alerts.resolve(fence, RESOLVE).await(), "already resolved");
    assertEquals(1, count("SELECT count(*) FROM alert_notifications WHERE status = 'RESOLVED'"));
    assertEquals(List.of(), alerts.firing().await());

    assertTrue(alerts.fire(fence, FIRE).await(), "a new episode");
    assertEquals(2, count("SELECT episode FROM alert_state"));
    assertEquals(3, count("SELECT count(*) FROM alert_notifications"));
  }

  @Test
  void aDeposedLeaderWritesNoTransition() {
    Fence deposed = new Fence("scheduler", "node-a/1", fence.epoch() + 7);
    assertFalse(alerts.fire(deposed, FIRE).await());
    assertEquals(0, count("SELECT count(*) FROM alert_state"));
    assertTrue(alerts.fire(fence, FIRE).await());
    assertFalse(alerts.resolve(deposed, RESOLVE).await());
    assertEquals(1, alerts.firing().await().size());
  }

  @Test
  void oneNodeDeliversAtATimeAndAClaimedMessageIsNotClaimedAgainWhileItsTryLasts() {
    alerts.fire(fence, FIRE).await();
    List<AlertStore.Claimed> first = alerts.claim("node-a/1", 10, 60_000).await();
    assertEquals(1, first.size());
    AlertNotice n = first.get(0).notice();
    assertEquals("AxExecuteFailureRateHigh", n.rule());
    assertEquals(Map.of("target", "http"), n.labels());
    assertEquals(0.5, n.value());
    assertEquals(List.of(), alerts.claim("node-b/2", 10, 60_000).await(), "node-a holds the delivery baton");
    assertEquals(List.of(), alerts.claim("node-a/1", 10, 60_000).await(), "claimed for its try already");

    alerts.resolve(fence, RESOLVE).await();
    db.pool.query("UPDATE alert_delivery SET held_until = now() - interval '1 second'").execute().await();
    List<AlertStore.Claimed> taken = alerts.claim("node-b/2", 10, 60_000).await();
    assertEquals(1, taken.size(), "node-a stopped renewing: node-b delivers, the resolved message only");
    assertEquals(0.02, taken.get(0).notice().value());
    assertTrue(taken.get(0).notice().resolvedAtMs() != null);
  }

  @Test
  void aFailedTryIsDueAgainAfterItsBackoffAndTheLastOneGivesUp() {
    alerts.fire(fence, FIRE).await();
    AlertStore.Claimed c = alerts.claim("node-a/1", 10, 60_000).await().get(0);
    assertFalse(alerts.failed(c, "HTTP 503", 2, 0).await());
    Row r = db.pool.query("SELECT state, tries, last_error FROM alert_notifications").execute().await().iterator().next();
    assertEquals("PENDING", r.getString(0));
    assertEquals(1, r.getInteger(1));
    assertEquals("HTTP 503", r.getString(2));
    AlertStore.Claimed again = alerts.claim("node-a/1", 10, 60_000).await().get(0);
    assertEquals(1, again.tries());
    assertTrue(alerts.failed(again, "HTTP 503", 2, 0).await(), "two tries of two: given up");
    assertEquals("FAILED", db.pool.query("SELECT state FROM alert_notifications").execute().await().iterator().next()
        .getString(0));
    assertEquals(List.of(), alerts.claim("node-a/1", 10, 60_000).await());
  }

  @Test
  void suppressedMessagesAreSummarisedOnceAndTheSummaryCountsAsSent() {
    alerts.fire(fence, FIRE).await();
    AlertStore.Claimed c = alerts.claim("node-a/1", 10, 0).await().get(0);
    assertTrue(alerts.suppressed(c).await());
    assertEquals(0, alerts.sentLastMinute().await());
    AlertStore.Claimed unreported = alerts.claim("node-a/1", 10, 60_000).await().get(0);
    assertTrue(unreported.suppressed());
    AlertNotice summary = Throttle.summary(List.of(unreported.notice()), 5, 1_700_000_100_000L);
    assertEquals(1, alerts.summarised(List.of(unreported), summary, "summary-1").await());
    assertEquals(0, alerts.summarised(List.of(unreported), summary, "summary-2").await(), "reported once");
    assertEquals(1, alerts.sentLastMinute().await());
    db.pool.query("UPDATE alert_notifications SET claimed_until = NULL").execute().await();
    assertEquals(List.of(), alerts.claim("node-a/1", 10, 60_000).await(), "nothing left to send or summarise");
  }

  @Test
  void skipsAreCountedPerTenantOverTheLookBackAndMarkedWhenAnnounced() {
    db.pool.query("""
        INSERT INTO alert_events (kind, tenant_id, task_id, detail, created_at) VALUES
          ('task_skipped', 't1', 11, 'dependency 10 ended FAILED', now()),
          ('task_skipped', 't1', 12, 'dependency 11 ended SKIPPED', now()),
          ('task_skipped', 't2', 21, 'old', now() - interval '1 hour')""").execute().await();
    List<ax.alert.AlertRules.Skips> skips = alerts.skips(60_000).await();
    assertEquals(List.of(new ax.alert.AlertRules.Skips("t1", 2, List.of(12L, 11L), "dependency 11 ended SKIPPED")), skips);
    assertEquals(2, alerts.markSkipsAnnounced("t1").await());
    assertEquals(1, count("SELECT count(*) FROM alert_events WHERE delivered_at IS NULL"));
  }

  @Test
  void noLeaderIsReadFromTheLeaseRow() {
    assertTrue(alerts.leaseLive("scheduler").await());
    db.pool.query("UPDATE leases SET expires_at = now() - interval '1 second'").execute().await();
    assertFalse(alerts.leaseLive("scheduler").await());
  }
}
