package ax.store;

import ax.task.Fingerprint;
import ax.task.NewTask;
import ax.task.TaskStatus;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fingerprint rule in PostgreSQL (V13): its 5-second boundary, what opts out, which task a duplicate
 * is answered with, batches, and 16 concurrent inserts on 16 connections.
 */
class DedupeStoreTest {
  private static final AtomicLong IDS = new AtomicLong(50_000_000);
  private static StoreFixture db;
  private static TaskStore tasks;

  @BeforeAll
  static void setUp() {
    db = new StoreFixture();
    tasks = new TaskStore(db.pool);
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  @BeforeEach
  void emptyTable() {
    db.pool.query("TRUNCATE tasks, task_attempts").execute().await();
  }

  private static UUID fp(String tenant, String payload) {
    return Fingerprint.of(tenant, "coupon.grant", Fingerprint.payloadDigest(payload));
  }

  private static NewTask task(String tenant, long triggerMs, UUID fingerprint, String bizKey) {
    return new NewTask(IDS.incrementAndGet(), tenant, "key-" + tenant, "coupon.grant", triggerMs, TaskStatus.DELAYED,
        5, 2, 60_000, "http://127.0.0.1:9/hook", null, "{\"user\":42}", bizKey, 1, null, fingerprint);
  }

  @Test
  void lessThanFiveSecondsApartIsTheSameTaskAndFiveSecondsIsNot() {
    long t = db.dbNow() + 600_000;
    UUID f = fp("tenant-a", "{\"user\":42}");
    TaskStore.Inserted first = tasks.insert(task("tenant-a", t, f, null)).await();
    assertFalse(first.duplicate());
    TaskStore.Inserted before = tasks.insert(task("tenant-a", t - 4_999, f, null)).await();
    assertEquals(TaskStore.DuplicateReason.FINGERPRINT, before.duplicateReason());
    assertEquals(first.task().taskId(), before.task().taskId());
    assertFalse(tasks.insert(task("tenant-a", t + 5_000, f, null)).await().duplicate(), "exactly 5 s later");
    assertFalse(tasks.insert(task("tenant-a", t - 5_000, f, null)).await().duplicate(), "exactly 5 s earlier");
    // 2.5 s after the first and 2.5 s before the one at +5 s: both collide, the earlier is the answer
    TaskStore.Inserted between = tasks.insert(task("tenant-a", t + 2_500, f, null)).await();
    assertEquals(first.task().taskId(), between.task().taskId());
    assertEquals(3, count());
  }

  @Test
  void anotherTenantAnotherPayloadOrNoFingerprintIsAnotherTask() {
    long t = db.dbNow() + 600_000;
    assertFalse(tasks.insert(task("tenant-a", t, fp("tenant-a", "{\"user\":42}"), null)).await().duplicate());
    assertFalse(tasks.insert(task("tenant-b", t, fp("tenant-b", "{\"user\":42}"), null)).await().duplicate());
    assertFalse(tasks.insert(task("tenant-a", t, fp("tenant-a", "{\"user\":43}"), null)).await().duplicate());
    assertFalse(tasks.insert(task("tenant-a", t, null, null)).await().duplicate());
    assertFalse(tasks.insert(task("tenant-a", t, null, null)).await().duplicate(), "opted out twice");
    assertEquals(5, count());
    assertFalse(tasks.find("tenant-a", IDS.get()).await().orElseThrow().dedupe());
  }

  @Test
  void aBizKeyRepeatIsReportedAsSuchEvenWhenTheFingerprintAlsoMatches() {
    long t = db.dbNow() + 600_000;
    UUID f = fp("tenant-a", "{\"user\":42}");
    TaskStore.Inserted first = tasks.insert(task("tenant-a", t, f, "order-1")).await();
    TaskStore.Inserted again = tasks.insert(task("tenant-a", t, f, "order-1")).await();
    assertEquals(TaskStore.DuplicateReason.BIZ_KEY, again.duplicateReason());
    TaskStore.Inserted otherKey = tasks.insert(task("tenant-a", t + 1, f, "order-2")).await();
    assertEquals(TaskStore.DuplicateReason.FINGERPRINT, otherKey.duplicateReason(), "a new biz_key, same payload");
    assertEquals(first.task().taskId(), otherKey.task().taskId());
    assertNull(first.duplicateReason());
    assertEquals(1, count());
  }

  @Test
  void aBatchCreatesTheFirstOfEqualItemsAndAnswersTheRestWithIt() {
    long t = db.dbNow() + 600_000;
    UUID f = fp("tenant-a", "{\"user\":42}");
    TaskStore.Inserted stored = tasks.insert(task("tenant-a", t - 60_000, f, null)).await();
    List<NewTask> batch = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      batch.add(task("tenant-a", t + i, f, null)); // ten copies: one task
    }
    batch.add(task("tenant-a", t - 59_000, f, null)); // a copy of the stored one
    for (int i = 0; i < 50; i++) {
      batch.add(task("tenant-a", t, fp("tenant-a", "{\"n\":" + i + "}"), null)); // fifty distinct
    }
    List<TaskStore.Inserted> out = tasks.insertMany(batch).await();
    assertFalse(out.get(0).duplicate(), "the first of the copies is created");
    for (int i = 1; i < 10; i++) {
      assertEquals(TaskStore.DuplicateReason.FINGERPRINT, out.get(i).duplicateReason());
      assertEquals(out.get(0).task().taskId(), out.get(i).task().taskId());
    }
    assertEquals(stored.task().taskId(), out.get(10).task().taskId());
    assertTrue(out.subList(11, 61).stream().noneMatch(TaskStore.Inserted::duplicate));
    assertEquals(1 + 1 + 50, count());
  }

  /** 16 connections insert the same task at once, 20 times: one row each time, everyone told which. */
  @Test
  void sixteenConcurrentInsertsCreateOneTask() {
    Vertx vertx = Vertx.vertx();
    Pool wide = Database.pool(vertx, Database.connectOptions(db.pg.url()), 16);
    try {
      TaskStore racing = new TaskStore(wide);
      long t = db.dbNow() + 600_000;
      for (int round = 0; round < 20; round++) {
        UUID f = fp("tenant-a", "{\"round\":" + round + "}");
        List<Future<TaskStore.Inserted>> all = new ArrayList<>();
        for (int c = 0; c < 16; c++) {
          all.add(racing.insert(task("tenant-a", t + c * 300L, f, null)));
        }
        Future.all(all).await();
        long created = all.stream().filter(x -> !x.result().duplicate()).count();
        assertEquals(1, created, "round " + round);
        assertEquals(1, all.stream().map(x -> x.result().task().taskId()).distinct().count(), "round " + round);
      }
      assertEquals(20, count());
    } finally {
      wide.close().await();
      vertx.close().await();
    }
  }

  private static long count() {
    return db.pool.query("SELECT count(*) FROM tasks").execute().await().iterator().next().getLong(0);
  }
}
