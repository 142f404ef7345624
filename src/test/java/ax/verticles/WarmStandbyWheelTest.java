package ax.verticles;

import ax.bus.Addresses;
import ax.bus.LocalCodec;
import ax.bus.TaskBatch;
import ax.clock.DbClock;
import ax.leader.LeaderTerm;
import ax.metrics.AxMetrics;
import ax.store.LeaseStore;
import ax.store.ScheduleStore;
import ax.store.TaskStore;
import ax.task.NewTask;
import ax.task.TaskStatus;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * WheelVerticle as a warm standby, deployed in a real Vert.x against a real PostgreSQL: a standby loads
 * the coming window into a copy, drops what fell {@link WheelVerticle#STANDBY_KEEP_MS} behind, and fires
 * nothing; on becoming leader it fires what it holds and what it had dropped (read again from the
 * oldest pending task); after its term it fires nothing again.
 */
@ExtendWith(VertxExtension.class)
class WarmStandbyWheelTest {
  private static final long LOAD_INTERVAL_MS = 100;

  private VerticleDatabase db;
  private TaskStore tasks;
  private final List<Long> dispatched = new CopyOnWriteArrayList<>();

  @BeforeEach
  void deploy(Vertx vertx, VertxTestContext ctx) {
    db = VerticleDatabase.create(vertx);
    tasks = new TaskStore(db.pool);
    db.tenantWithKey("tenant-a", "key-a", "warm-standby-secret-0123456789");
    DbClock clock = DbClock.system();
    clock.anchorMillis(System.currentTimeMillis(), System.nanoTime()); // same machine as the database
    vertx.eventBus().<TaskBatch>localConsumer(Addresses.DISPATCH_DUE,
        msg -> msg.body().tasks().forEach(t -> dispatched.add(t.taskId())));
    vertx.deployVerticle(new WheelVerticle(new ScheduleStore(db.pool, "node-a"), clock,
            new WheelVerticle.Settings(10, 512, 10_000, 60_000, LOAD_INTERVAL_MS, 1_000, 10_000, 200, 0),
            new AxMetrics(new SimpleMeterRegistry())))
        .onComplete(ctx.succeedingThenComplete());
  }

  @AfterEach
  void close() {
    db.close();
  }

  @Test
  void aStandbyHoldsTheWindowFiresNothingAndFiresItAllOnceItLeads(Vertx vertx) throws Exception {
    long now = System.currentTimeMillis();
    long overdue = 71_000L;
    long soon = 71_001L;
    insert(overdue, now - 5_000); // the leader's backlog: a standby drops it from its copy
    insert(soon, now + 1_500);

    JsonObject standby = WheelAndDispatch.awaitWheel(vertx, s -> s.getInteger("held") == 1, "the standby's copy holds the coming task");
    assertFalse(standby.getBoolean("leader"));
    Thread.sleep(Math.max(0, now + 1_500 + 300 - System.currentTimeMillis())); // past the coming task's due time
    assertEquals(List.of(), dispatched, "a standby fires nothing, due or not");

    vertx.eventBus().publish(Addresses.LEADER_CHANGED, db.leadScheduler("node-a/1"), LocalCodec.localOnly());
    awaitDispatched(Set.of(overdue, soon));

    vertx.eventBus().publish(Addresses.LEADER_CHANGED, LeaderTerm.standby(LeaseStore.SCHEDULER, "node-a/1"),
        LocalCodec.localOnly());
    insert(71_002L, System.currentTimeMillis() + 200);
    WheelAndDispatch.awaitWheel(vertx, s -> !s.getBoolean("leader") && s.getInteger("held") >= 1, "the copy after the term");
    Thread.sleep(600); // the new task is due and a standby again must not fire it
    assertFalse(dispatched.contains(71_002L), "fired after the term ended");
  }

  private void insert(long id, long dueMs) throws Exception {
    tasks.insert(new NewTask(id, "tenant-a", "key-a", "warm.standby", dueMs, TaskStatus.DELAYED, 5, 0, 5_000,
        "http://127.0.0.1:9/hook", null, "{}", null)).await(10, TimeUnit.SECONDS);
  }

  private void awaitDispatched(Set<Long> ids) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 5_000;
    while (!dispatched.containsAll(ids)) {
      assertTrue(System.currentTimeMillis() < deadline, "dispatched only " + dispatched + " of " + ids);
      Thread.sleep(20);
    }
  }
}
