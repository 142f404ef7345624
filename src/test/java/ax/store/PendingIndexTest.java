package ax.store;

import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * V19's partial index {@code tasks_pending_due} is what the statements that walk due times read, and it
 * holds no entry for a claimed or finished task: the plans of the loader, the overdue sweep and the
 * executor top-up over a table of 50 000 finished tasks and 200 pending ones, and the index's entries
 * after tasks are claimed and completed.
 */
class PendingIndexTest {
  private static StoreFixture db;

  @BeforeAll
  static void setUp() {
    db = new StoreFixture();
    // most rows finished (the shape of a table after weeks of work), due around now, both kinds of target
    db.pool.query("""
        INSERT INTO tasks (task_id, tenant_id, api_key, task_type, trigger_time, next_trigger_time, status,
                           callback_url, processor, finished_at)
        SELECT g, 'tenant-a', 'key-a', 'coupon.grant', now() + (g % 600 - 300) * interval '1 second',
               now() + (g % 600 - 300) * interval '1 second',
               CASE WHEN g % 250 = 0 THEN 'DELAYED' WHEN g % 250 = 1 THEN 'READY' ELSE 'SUCCESS' END,
               CASE WHEN g % 2 = 0 THEN 'http://127.0.0.1:9/hook' END, CASE WHEN g % 2 = 1 THEN 'reports' END,
               CASE WHEN g % 250 > 1 THEN now() END
          FROM generate_series(1, 50000) AS g""").execute().await();
    db.pool.query("ANALYZE tasks").execute().await();
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  @Test
  void theLoaderReadsThePendingIndex() {
    long now = db.dbNow();
    String plan = explain(ScheduleStore.LOAD_PENDING, ScheduleStore.LOAD_PENDING.params()
        .set("after_time", Times.toTimestamp(now - 60_000)).set("after_id", 0L)
        .set("horizon", Times.toTimestamp(now + 60_000)).set("limit", 1000).tuple());
    assertTrue(plan.contains("tasks_pending_due"), plan);
    assertFalse(plan.contains("Seq Scan"), plan);
  }

  @Test
  void theOverdueSweepReadsThePendingIndex() {
    String plan = explain(ScheduleStore.OVERDUE_PENDING, ScheduleStore.OVERDUE_PENDING.params()
        .set("lookback_ms", 86_400_000L).set("grace_ms", 5_000L).set("limit", 1000).tuple());
    assertTrue(plan.contains("tasks_pending_due"), plan);
    assertFalse(plan.contains("Seq Scan"), plan);
  }

  @Test
  void theExecutorTopUpReadsThePartialIndexes() {
    String plan = explain(ExecutionStore.LOAD_READY, ExecutionStore.LOAD_READY.params().set("limit", 1000)
        .set("processors", new String[] {"reports"}).tuple());
    assertTrue(plan.contains("tasks_pending_due"), "the due DELAYED half: " + plan);
    assertTrue(plan.contains("tasks_ready_processor"), "the READY half: " + plan);
    assertFalse(plan.contains("Seq Scan"), plan);
  }

  /** Entries are written for pending versions only: claiming and finishing rows adds none. */
  @Test
  void claimedAndFinishedVersionsAddNoEntry() {
    db.pool.query("""
        INSERT INTO tasks (task_id, tenant_id, api_key, task_type, trigger_time, next_trigger_time, status,
                           callback_url)
        SELECT g, 'tenant-b', 'key-b', 'coupon.grant', now() + interval '1 hour', now() + interval '1 hour',
               'DELAYED', 'http://127.0.0.1:9/hook'
          FROM generate_series(900001, 902000) AS g""").execute().await();
    long before = pendingEntries();
    db.pool.query("UPDATE tasks SET status = 'RUNNING', lease_deadline = now() + interval '1 minute' WHERE task_id BETWEEN 900001 AND 902000").execute().await();
    db.pool.query("UPDATE tasks SET status = 'SUCCESS', lease_deadline = NULL, finished_at = now() WHERE task_id BETWEEN 900001 AND 902000").execute().await();
    assertEquals(before, pendingEntries(), "2 000 rows claimed and finished");
    db.pool.query("UPDATE tasks SET status = 'DELAYED', finished_at = NULL WHERE task_id BETWEEN 900001 AND 900010").execute().await();
    assertEquals(before + 10, pendingEntries(), "a row put back to DELAYED (a retry) is indexed again");
  }

  /** Index tuples of tasks_pending_due, dead ones included (autovacuum does not run in tests). */
  private static long pendingEntries() {
    db.pool.query("CREATE EXTENSION IF NOT EXISTS pageinspect").execute().await();
    return db.pool.query("""
        SELECT coalesce(sum(live_items + dead_items), 0) AS n
          FROM generate_series(1, pg_relation_size('tasks_pending_due') / 8192 - 1) AS b,
               LATERAL bt_page_stats('tasks_pending_due', b::int)
         WHERE type = 'l'""").execute().await().iterator().next().getLong("n");
  }

  private static String explain(Sql statement, Tuple params) {
    return StreamSupport.stream(db.pool.preparedQuery("EXPLAIN " + statement.text()).execute(params).await()
        .spliterator(), false).map((Row r) -> r.getString(0)).collect(Collectors.joining("\n"));
  }
}
