package ax.verticles;

import ax.bus.Addresses;
import ax.bus.LocalCodec;
import ax.dispatch.DispatchLoad;
import ax.dispatch.OutcomeBacklog;
import ax.store.TaskStore;
import ax.task.NewTask;
import ax.task.TaskStatus;
import io.vertx.core.Vertx;
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
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * WheelVerticle and DispatchVerticle deployed in a real Vert.x against a real PostgreSQL and a real HTTP
 * receiver, claiming ahead (AX_CLAIM_LEAD_MS): each task is claimed — RUNNING in PostgreSQL — before its
 * trigger time, and its call still arrives at or after that time, never before; the outcome is written
 * once, for the first attempt.
 */
@ExtendWith(VertxExtension.class)
class ClaimAheadTest {
  /** Generous, so that the claim is seen ahead even on a loaded 2-core box. */
  private static final long LEAD_MS = 800;
  private static final int TASKS = 20;

  private VerticleDatabase db;
  private TaskStore tasks;
  private HttpServer receiver;
  private final Map<Long, Long> arrivals = new ConcurrentHashMap<>();
  private final OutcomeBacklog backlog = new OutcomeBacklog(1_000);
  private final DispatchLoad load = new DispatchLoad(backlog);

  @BeforeEach
  void deploy(Vertx vertx, VertxTestContext ctx) {
    db = VerticleDatabase.create(vertx);
    tasks = new TaskStore(db.pool);
    WheelAndDispatch.deploy(vertx, db, "claim-ahead-secret-0123456789", LEAD_MS,
            id -> arrivals.putIfAbsent(id, System.currentTimeMillis()), backlog, load)
        .onSuccess(r -> receiver = r)
        .onComplete(ctx.succeedingThenComplete());
  }

  @AfterEach
  void close() {
    db.close();
  }

  @Test
  void tasksAreClaimedBeforeTheirTriggerTimeAndCalledNotBeforeIt(Vertx vertx, VertxTestContext ctx)
      throws Exception {
    long first = System.currentTimeMillis() + 2_500;
    String url = "http://127.0.0.1:" + receiver.actualPort() + "/hook";
    Long[] ids = new Long[TASKS];
    for (int i = 0; i < TASKS; i++) {
      ids[i] = 91_000L + i;
      tasks.insert(new NewTask(ids[i], "tenant-a", "key-a", "claim.ahead", first + i * 7L, TaskStatus.DELAYED, 5, 0,
          5_000, url, null, "{}", null)).await();
    }
    vertx.eventBus().publish(Addresses.LEADER_CHANGED, db.leadScheduler("node-a/1"), LocalCodec.localOnly());

    // Watch PostgreSQL until every call has arrived: when was each task first seen claimed?
    Map<Long, Long> seenRunning = new ConcurrentHashMap<>();
    AtomicInteger mostInHand = new AtomicInteger();
    vertx.setPeriodic(5, timer -> mostInHand.accumulateAndGet(load.dueTasksInHand(), Math::max));
    vertx.setPeriodic(5, timer -> db.pool.preparedQuery("SELECT task_id FROM tasks WHERE task_id = ANY($1) AND status <> 'DELAYED'")
        .execute(Tuple.of(ids)).onSuccess(rows -> {
          long now = System.currentTimeMillis();
          rows.forEach(r -> seenRunning.putIfAbsent(r.getLong("task_id"), now));
          if (arrivals.size() == TASKS) {
            vertx.cancelTimer(timer);
            ctx.completeNow();
          }
        }));
    assertTrue(ctx.awaitCompletion(20, TimeUnit.SECONDS), "every call arrives");
    if (ctx.failed()) {
      throw new AssertionError(ctx.causeOfFailure());
    }

    for (int i = 0; i < TASKS; i++) {
      long due = first + i * 7L;
      assertTrue(arrivals.get(ids[i]) >= due, "task " + ids[i] + " called " + (due - arrivals.get(ids[i]))
          + " ms early");
      assertTrue(seenRunning.containsKey(ids[i]) && seenRunning.get(ids[i]) < due, "task " + ids[i]
          + " was not seen claimed before its trigger time (seen " + (seenRunning.getOrDefault(ids[i], -1L) - due)
          + " ms after it)");
    }
    awaitOutcomes(ids);
    // the dispatcher's count of due work (what webhook delivery yields to) saw them and went back to 0
    assertTrue(mostInHand.get() >= 1, "the tasks held for their trigger time were counted");
    long deadline = System.currentTimeMillis() + 5_000;
    while (load.dueTasksInHand() != 0) {
      assertTrue(System.currentTimeMillis() < deadline, load.dueTasksInHand() + " due tasks still counted");
      Thread.sleep(10);
    }
  }

  /** Every task ends SUCCESS in its first attempt, with the attempt's start at its trigger time. */
  private void awaitOutcomes(Long[] ids) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 10_000;
    while (true) {
      List<Row> rows = db.pool.preparedQuery("""
              SELECT task_id, status, attempt, started_at = next_trigger_time AS started_at_trigger
                FROM tasks WHERE task_id = ANY($1)""")
          .execute(Tuple.of(ids)).await().stream().toList();
      if (rows.stream().allMatch(r -> r.getString("status").equals("SUCCESS")) || System.currentTimeMillis() > deadline) {
        for (Row r : rows) {
          assertEquals("SUCCESS", r.getString("status"), "task " + r.getLong("task_id"));
          assertEquals(1, r.getInteger("attempt"), "task " + r.getLong("task_id") + " ran once");
          assertTrue(r.getBoolean("started_at_trigger"), "task " + r.getLong("task_id") + ": started_at");
        }
        return;
      }
      Thread.sleep(50);
    }
  }
}
