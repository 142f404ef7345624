package ax.verticles;

import ax.bus.Addresses;
import ax.bus.LocalCodec;
import ax.leader.LeaderTerm;
import ax.store.LeaseStore;
import ax.store.TaskStore;
import ax.task.NewTask;
import ax.task.TaskStatus;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hand-over claim of a leader's graceful stop ({@link Addresses#WHEEL_HAND_OVER}), with
 * WheelVerticle and DispatchVerticle in a real Vert.x, a real PostgreSQL and a real HTTP receiver: what
 * falls due within the horizon is claimed at once, and still called at its trigger time — not before,
 * once — after the node has stopped leading; what lies beyond the horizon is left to the successor.
 */
@ExtendWith(VertxExtension.class)
class HandOverClaimTest {
  private static final int WITHIN = 10;
  private static final long HORIZON_MS = 3_000;

  private VerticleDatabase db;
  private TaskStore tasks;
  private HttpServer receiver;
  private final Map<Long, Long> arrivals = new ConcurrentHashMap<>();
  private final Map<Long, Integer> calls = new ConcurrentHashMap<>();

  @BeforeEach
  void deploy(Vertx vertx, VertxTestContext ctx) {
    db = VerticleDatabase.create(vertx);
    tasks = new TaskStore(db.pool);
    WheelAndDispatch.deploy(vertx, db, "hand-over-secret-0123456789", 50, id -> {
          arrivals.putIfAbsent(id, System.currentTimeMillis());
          calls.merge(id, 1, Integer::sum);
        })
        .onSuccess(r -> receiver = r)
        .onComplete(ctx.succeedingThenComplete());
  }

  @AfterEach
  void close() {
    db.close();
  }

  @Test
  void whatFallsDueWithinTheHorizonIsClaimedNowAndCalledOnTimeAfterTheTermEnded(Vertx vertx) throws Exception {
    String url = "http://127.0.0.1:" + receiver.actualPort() + "/hook";
    vertx.eventBus().publish(Addresses.LEADER_CHANGED, db.leadScheduler("node-a/1"), LocalCodec.localOnly());
    long first = System.currentTimeMillis() + 1_500;
    Long[] within = new Long[WITHIN];
    for (int i = 0; i < WITHIN; i++) {
      within[i] = 81_000L + i;
      insert(within[i], first + i * 50L, url);
    }
    long beyond = 81_100L;
    insert(beyond, first + HORIZON_MS + 2_000, url);
    WheelAndDispatch.awaitWheel(vertx, stats -> stats.getInteger("held") >= WITHIN + 1, "the wheel holds them");

    int handed = vertx.eventBus().<Integer>request(Addresses.WHEEL_HAND_OVER, HORIZON_MS,
        new DeliveryOptions().setLocalOnly(true)).await(10, TimeUnit.SECONDS).body();
    List<Row> claimed = db.pool.preparedQuery("SELECT task_id FROM tasks WHERE task_id = ANY($1) AND status = 'RUNNING'")
        .execute(Tuple.of((Object) within)).await(10, TimeUnit.SECONDS).stream().toList();
    vertx.eventBus().publish(Addresses.LEADER_CHANGED, LeaderTerm.standby(LeaseStore.SCHEDULER, "node-a/1"),
        LocalCodec.localOnly());

    assertEquals(WITHIN, handed, "the tasks due within the horizon went to be claimed");
    assertEquals(WITHIN, claimed.size(), "and were claimed before the answer");
    assertTrue(System.currentTimeMillis() < first, "the test's own timing: the claim answered before the first was due");
    long deadline = System.currentTimeMillis() + 15_000;
    while (arrivals.size() < WITHIN) {
      assertTrue(System.currentTimeMillis() < deadline, "calls arrived for " + arrivals.keySet());
      Thread.sleep(20);
    }
    for (int i = 0; i < WITHIN; i++) {
      long due = first + i * 50L;
      assertTrue(arrivals.get(within[i]) >= due, "task " + within[i] + " called "
          + (due - arrivals.get(within[i])) + " ms early");
      assertEquals(1, calls.get(within[i]), "task " + within[i] + " called once");
    }
    awaitSucceeded(within);
    Row left = db.pool.preparedQuery("SELECT status FROM tasks WHERE task_id = $1").execute(Tuple.of(beyond))
        .await(10, TimeUnit.SECONDS).iterator().next();
    assertEquals("DELAYED", left.getString("status"), "beyond the horizon: left for the successor");
  }

  private void insert(long id, long dueMs, String url) throws Exception {
    tasks.insert(new NewTask(id, "tenant-a", "key-a", "hand.over", dueMs, TaskStatus.DELAYED, 5, 0, 5_000, url, null,
        "{}", null)).await(10, TimeUnit.SECONDS);
  }

  /** Outcomes are written by attempt after the term ended too: SUCCESS in attempt 1, started at the trigger time. */
  private void awaitSucceeded(Long[] ids) throws Exception {
    long deadline = System.currentTimeMillis() + 10_000;
    while (true) {
      List<Row> rows = db.pool.preparedQuery("""
              SELECT task_id, status, attempt, started_at = next_trigger_time AS started_at_trigger
                FROM tasks WHERE task_id = ANY($1)""")
          .execute(Tuple.of((Object) ids)).await(10, TimeUnit.SECONDS).stream().toList();
      if (rows.stream().allMatch(r -> r.getString("status").equals("SUCCESS")) || System.currentTimeMillis() > deadline) {
        for (Row r : rows) {
          assertEquals("SUCCESS", r.getString("status"), "task " + r.getLong("task_id"));
          assertEquals(1, r.getInteger("attempt"), "task " + r.getLong("task_id"));
          assertTrue(r.getBoolean("started_at_trigger"), "task " + r.getLong("task_id") + ": started_at");
        }
        return;
      }
      Thread.sleep(50);
    }
  }
}
