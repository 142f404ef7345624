package ax.store;

import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The plans the hot statements get, read as the node gets them: generic (the pool caches prepared
 * statements, and PostgreSQL plans a cached statement generically from its sixth execution on) and with
 * no ANALYZE (a fresh table on a server with autovacuum off, as on the bench machine). The loader and the
 * sweeps walk an index of due times; the statements that take rows by id probe the primary key. A
 * partial index over pending rows (tried as V19 on 2026-12-02, bench/README.md History) broke the second:
 * its predicate was implied by the claim's status test and the planner, thinking it tiny, walked every
 * due entry for each claim of a burst (3× the PostgreSQL CPU per task).
 */
class PlanTest {
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
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  @Test
  void theLoaderWalksTheDueTimeIndex() {
    long now = db.dbNow();
    String plan = explain(ScheduleStore.LOAD_PENDING, ScheduleStore.LOAD_PENDING.params()
        .set("after_time", Times.toTimestamp(now - 60_000)).set("after_id", 0L)
        .set("horizon", Times.toTimestamp(now + 60_000)).set("limit", 1000).tuple());
    assertTrue(plan.contains("tasks_next_trigger_status"), plan);
    assertFalse(plan.contains("Seq Scan"), plan);
  }

  @Test
  void theOverdueSweepWalksTheDueTimeIndex() {
    String plan = explain(ScheduleStore.OVERDUE_PENDING, ScheduleStore.OVERDUE_PENDING.params()
        .set("lookback_ms", 86_400_000L).set("grace_ms", 5_000L).set("limit", 1000).tuple());
    assertTrue(plan.contains("tasks_next_trigger_status"), plan);
    assertFalse(plan.contains("Seq Scan"), plan);
  }

  @Test
  void theExecutorTopUpReadsIndexes() {
    String plan = explain(ExecutionStore.LOAD_READY, ExecutionStore.LOAD_READY.params().set("limit", 1000)
        .set("processors", new String[] {"reports"}).tuple());
    assertTrue(plan.contains("tasks_next_trigger_status"), "the due DELAYED half: " + plan);
    assertTrue(plan.contains("tasks_ready_processor"), "the READY half: " + plan);
    assertFalse(plan.contains("Seq Scan"), plan);
  }

  @Test
  void statementsThatTakeRowsByIdProbeThePrimaryKey() {
    for (String plan : byIdPlans("")) {
      assertFalse(plan.contains("tasks_next_trigger_status"), plan);
      assertTrue(plan.contains("tasks_pkey"), plan);
    }
  }

  /**
   * Their due-time filter is no index condition (Sql.dueBy). In an executor spread, with statistics taken
   * while the tasks were still ahead, PostgreSQL costed "due by now" as a few index entries and read 37 %
   * of the DISPATCHING writes and 44 % of the claims from the due-time index — every finished task too,
   * 500–850 buffers against ~20 by primary key. With the nested loop over the ids turned off, that range
   * is the planner's alternative if the filter is indexable, as the stale statistics made it there (a
   * scan of the whole index on its status column remains possible, and is costed as what it is).
   */
  @Test
  void theirDueFilterIsNeverReadFromTheDueTimeIndex() {
    for (String plan : byIdPlans("SET enable_nestloop = off")) {
      assertFalse(plan.lines().anyMatch(l -> l.contains("Index Cond") && l.contains("next_trigger_time")), plan);
    }
  }

  private static String[] byIdPlans(String setting) {
    String claim = explain(ScheduleStore.CLAIM_DUE, ScheduleStore.CLAIM_DUE.params()
        .fence(new ax.leader.Fence("scheduler", "node-a/1", 1)).set("ids", new Long[] {250L, 500L, 750L})
        .set("node", "node-a").set("lead_ms", 50).tuple(), setting);
    String notYetDue = explain(ScheduleStore.NOT_YET_DUE, ScheduleStore.NOT_YET_DUE.params()
        .set("ids", new Long[] {250L, 500L, 750L}).tuple(), setting);
    String dispatch = explain(ExecutionStore.DISPATCH, ExecutionStore.DISPATCH.params()
        .fence(new ax.leader.Fence("scheduler", "node-a/1", 1)).set("ids", new Long[] {251L, 501L, 751L})
        .set("executor", "exec-1").set("node", "node-a").set("ack_timeout_ms", 5_000).set("lead_ms", 50).tuple(),
        setting);
    return new String[] {claim, notYetDue, dispatch};
  }

  private static String explain(Sql statement, Tuple params) {
    return explain(statement, params, "");
  }

  /** The generic plan, the one a cached prepared statement settles on; {@code setting} is a SET or empty. */
  private static String explain(Sql statement, Tuple params, String setting) {
    return db.pool.withConnection(c -> c.query("SET plan_cache_mode = force_generic_plan").execute()
            .compose(v -> setting.isEmpty() ? io.vertx.core.Future.succeededFuture() : c.query(setting).execute())
            .compose(v -> c.preparedQuery("EXPLAIN " + statement.text()).execute(params))
            .eventually(() -> c.query("RESET ALL").execute()))
        .map(rows -> StreamSupport.stream(rows.spliterator(), false).map((Row r) -> r.getString(0))
            .collect(Collectors.joining("\n"))).await();
  }
}
