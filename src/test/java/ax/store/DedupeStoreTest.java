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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fingerprint rule in PostgreSQL (V13, enforced by V17's gates): its 5-second boundary, what opts
 * out, which task a duplicate is answered with, batches and groups of single submissions, and concurrent
 * single, group and batch inserts on 16 connections.
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

  /** The two ways several tasks go in together: a batch (set-wise check) and a group (row by row). */
  enum Together {
    BATCH, GROUP;

    Future<List<TaskStore.Inserted>> insert(TaskStore store, List<NewTask> tasks) {
      return this == BATCH ? store.insertMany(tasks) : store.insertGroup(tasks);
    }
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

  /**
   * The batch insert states the window in its own SQL (TaskStore.fingerprintNear), the single insert and a
   * group in V17's function: all must draw the line at exactly 5 s. Equal items go in successive rounds, so
   * each is checked against the stored task and the items created before it.
   */
  @ParameterizedTest
  @EnumSource(Together.class)
  void tasksInsertedTogetherDrawTheSameFiveSecondLineAsASingleInsert(Together together) {
    long t = db.dbNow() + 600_000;
    UUID f = fp("tenant-a", "{\"user\":42}");
    TaskStore.Inserted stored = tasks.insert(task("tenant-a", t, f, null)).await();
    List<TaskStore.Inserted> out = together.insert(tasks, List.of(task("tenant-a", t + 4_999, f, null),
        task("tenant-a", t - 5_000, f, null), task("tenant-a", t + 5_000, f, null))).await();
    assertEquals(TaskStore.DuplicateReason.FINGERPRINT, out.get(0).duplicateReason(), "4.999 s later");
    assertEquals(stored.task().taskId(), out.get(0).task().taskId());
    assertFalse(out.get(1).duplicate(), "exactly 5 s earlier");
    assertFalse(out.get(2).duplicate(), "exactly 5 s later");
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

  @ParameterizedTest
  @EnumSource(Together.class)
  void tasksInsertedTogetherCreateTheFirstOfEqualItemsAndAnswerTheRestWithIt(Together together) {
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
    List<TaskStore.Inserted> out = together.insert(tasks, batch).await();
    assertFalse(out.get(0).duplicate(), "the first of the copies is created");
    for (int i = 1; i < 10; i++) {
      assertEquals(TaskStore.DuplicateReason.FINGERPRINT, out.get(i).duplicateReason());
      assertEquals(out.get(0).task().taskId(), out.get(i).task().taskId());
    }
    assertEquals(stored.task().taskId(), out.get(10).task().taskId());
    assertTrue(out.subList(11, 61).stream().noneMatch(TaskStore.Inserted::duplicate));
    assertEquals(1 + 1 + 50, count());
  }

  /**
   * A retried batch (every item a repeat, of either kind, in two tenants, new items between them) is
   * answered item by item with the task each one repeats and why: the repeats are looked up together, so
   * this holds the answers to their places.
   */
  @ParameterizedTest
  @EnumSource(Together.class)
  void aRepeatedBatchAnswersEveryItemWithTheTaskItRepeats(Together together) {
    long t = db.dbNow() + 600_000;
    List<NewTask> first = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      String tenant = i % 2 == 0 ? "tenant-a" : "tenant-b";
      boolean keyed = i % 3 == 0;
      first.add(task(tenant, t + i, fp(tenant, "{\"retry\":" + i + "}"), keyed ? "order-" + i / 2 : null));
    }
    List<TaskStore.Inserted> stored = together.insert(tasks, first).await();
    assertTrue(stored.stream().noneMatch(TaskStore.Inserted::duplicate));
    List<NewTask> retried = new ArrayList<>();
    List<Integer> repeats = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      NewTask was = first.get(i);
      // new ids, as a client that retries a batch without task ids gets; a new payload where keyed, so the
      // biz_key and not the fingerprint decides; every fifth preceded by a task never seen
      if (i % 5 == 0) {
        retried.add(task(was.tenantId(), t + 100_000 + i, fp(was.tenantId(), "{\"fresh\":" + i + "}"), null));
      }
      repeats.add(retried.size());
      retried.add(task(was.tenantId(), was.triggerTimeMs() + 1, was.bizKey() != null
          ? fp(was.tenantId(), "{\"changed\":" + i + "}") : was.fingerprint(), was.bizKey()));
    }
    List<TaskStore.Inserted> out = together.insert(tasks, retried).await();
    assertEquals(retried.size(), out.size());
    for (int i = 0; i < 40; i++) {
      TaskStore.Inserted answer = out.get(repeats.get(i));
      assertEquals(stored.get(i).task().taskId(), answer.task().taskId(), "item " + i);
      assertEquals(first.get(i).bizKey() != null ? TaskStore.DuplicateReason.BIZ_KEY
          : TaskStore.DuplicateReason.FINGERPRINT, answer.duplicateReason(), "item " + i);
    }
    assertEquals(8, out.stream().filter(x -> !x.duplicate()).count(), "the new items are created");
    assertEquals(48, count());
  }

  /**
   * An equal item refused because of a stored task does not shadow a later one: the stored task is due
   * at -4 s, the batch has copies at 0 s (refused: 4 s from the stored one), +3 s (created: 7 s from the
   * stored one, and the one at 0 s does not exist) and +4.5 s (refused: 1.5 s from the one at +3 s).
   */
  @ParameterizedTest
  @EnumSource(Together.class)
  void equalItemsInsertedTogetherAreCheckedInOrderAgainstWhatWasCreated(Together together) {
    long t = db.dbNow() + 600_000;
    UUID f = fp("tenant-a", "{\"chain\":1}");
    TaskStore.Inserted stored = tasks.insert(task("tenant-a", t - 4_000, f, null)).await();
    List<TaskStore.Inserted> out = together.insert(tasks, List.of(task("tenant-a", t, f, null),
        task("tenant-a", t + 3_000, f, null), task("tenant-a", t + 4_500, f, null))).await();
    assertEquals(stored.task().taskId(), out.get(0).task().taskId());
    assertFalse(out.get(1).duplicate());
    assertEquals(out.get(1).task().taskId(), out.get(2).task().taskId());
    assertEquals(2, count());
  }

  /**
   * 8 batches of the same 300 payloads, each in its own order, 8 groups of 40 of them and 8 single inserts
   * of some of them, all at once on 16 connections: each payload is one task, and every answer names it.
   * Gates are locked in slot order whatever the request order, so nothing deadlocks (a deadlock would
   * fail a batch or a group).
   */
  @Test
  void concurrentBatchesGroupsAndSingleInsertsOfTheSamePayloadsCreateEachOnce() {
    onSixteenConnections(racing -> {
      long t = db.dbNow() + 600_000;
      List<UUID> payloads = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        payloads.add(fp("tenant-a", "{\"race\":" + i + "}"));
      }
      List<Future<List<TaskStore.Inserted>>> batches = new ArrayList<>();
      List<Future<TaskStore.Inserted>> singles = new ArrayList<>();
      for (int c = 0; c < 8; c++) {
        List<UUID> order = new ArrayList<>(payloads);
        java.util.Collections.shuffle(order, new java.util.Random(c));
        List<NewTask> batch = new ArrayList<>();
        for (UUID f : order) {
          batch.add(task("tenant-a", t + c * 100L, f, null));
        }
        batches.add(racing.insertMany(batch));
        batches.add(racing.insertGroup(batch.subList(c * 30, c * 30 + 40).stream()
            .map(b -> task("tenant-a", b.triggerTimeMs() + 25, b.fingerprint(), null)).toList()));
        singles.add(racing.insert(task("tenant-a", t + c * 100L + 50, payloads.get(c * 37), null)));
      }
      Future.all(batches).await();
      Future.all(singles).await();
      java.util.Map<UUID, java.util.Set<Long>> answered = new java.util.HashMap<>();
      for (Future<List<TaskStore.Inserted>> b : batches) {
        for (TaskStore.Inserted ins : b.result()) {
          answered.computeIfAbsent(fingerprintOf(ins.task().taskId()), k -> new java.util.HashSet<>())
              .add(ins.task().taskId());
        }
      }
      for (Future<TaskStore.Inserted> s : singles) {
        answered.computeIfAbsent(fingerprintOf(s.result().task().taskId()), k -> new java.util.HashSet<>())
            .add(s.result().task().taskId());
      }
      assertEquals(300, answered.size());
      assertTrue(answered.values().stream().allMatch(ids -> ids.size() == 1), "every answer names the one task");
      assertEquals(300, count());
    });
  }

  /** Runs {@code race} with a store on a pool of 16 connections, so its inserts really run at once. */
  private static void onSixteenConnections(java.util.function.Consumer<TaskStore> race) {
    Vertx vertx = Vertx.vertx();
    Pool wide = Database.pool(vertx, Database.connectOptions(db.pg.url()), 16);
    try {
      race.accept(new TaskStore(wide));
    } finally {
      wide.close().await();
      vertx.close().await();
    }
  }

  private static UUID fingerprintOf(long taskId) {
    return db.pool.preparedQuery("SELECT fingerprint FROM tasks WHERE task_id = $1")
        .execute(io.vertx.sqlclient.Tuple.of(taskId)).await().iterator().next().getUUID(0);
  }

  /**
   * A batch whose gate is held by an open transaction inserting an equal task: the other items are
   * created at once, the equal one waits for that commit and is then answered with the committed task.
   */
  @Test
  void aBatchInsertsPastABusyGateAndChecksBehindItAfterTheHolderCommits() throws Exception {
    long t = db.dbNow() + 600_000;
    UUID busy = fp("tenant-a", "{\"busy\":1}");
    UUID free = fp("tenant-a", "{\"free\":1}");
    NewTask held = task("tenant-a", t, busy, null);
    io.vertx.sqlclient.SqlConnection holder = db.pool.getConnection().await();
    try {
      holder.begin().await();
      // what a single insert does (V17's ax_fingerprint_free, then the row), left uncommitted
      holder.preparedQuery("""
          INSERT INTO tasks (task_id, tenant_id, api_key, task_type, trigger_time, next_trigger_time, status,
                             callback_url, fingerprint)
          SELECT $1, 'tenant-a', 'key-tenant-a', 'coupon.grant', $2, $2, 'DELAYED', 'http://127.0.0.1:9/hook', $3
           WHERE ax_fingerprint_free($3, $2)""")
          .execute(io.vertx.sqlclient.Tuple.of(held.taskId(), Times.toTimestamp(t), busy)).await();
      Future<List<TaskStore.Inserted>> batch = tasks.insertMany(List.of(task("tenant-a", t + 1_000, busy, null),
          task("tenant-a", t, free, null)));
      long deadline = System.currentTimeMillis() + 10_000;
      while (count() < 1 && System.currentTimeMillis() < deadline) {
        Thread.sleep(20); // the item behind the free gate commits while the other waits
      }
      assertEquals(1, count(), "the item behind the free gate is stored while the busy gate is held");
      assertFalse(batch.isComplete(), "the item behind the busy gate waits for the holder");
      holder.query("COMMIT").execute().await();
      List<TaskStore.Inserted> out = batch.await();
      assertEquals(held.taskId(), out.get(0).task().taskId());
      assertEquals(TaskStore.DuplicateReason.FINGERPRINT, out.get(0).duplicateReason());
      assertFalse(out.get(1).duplicate());
      assertEquals(2, count());
    } finally {
      holder.close().await();
    }
  }

  @Test
  void javaAndSqlPickTheSameGate() {
    for (int i = 0; i < 200; i++) {
      UUID f = fp("tenant-" + i, "{}");
      int sql = db.pool.preparedQuery("SELECT ax_fingerprint_gate($1)").execute(io.vertx.sqlclient.Tuple.of(f))
          .await().iterator().next().getInteger(0);
      assertEquals(sql, FingerprintGates.of(f), f.toString());
    }
    assertEquals(FingerprintGates.COUNT, db.pool.query("SELECT count(*) FROM fingerprint_gates").execute().await()
        .iterator().next().getLong(0));
  }

  /** 16 connections insert the same task at once, 20 times: one row each time, everyone told which. */
  @Test
  void sixteenConcurrentInsertsCreateOneTask() {
    onSixteenConnections(racing -> {
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
    });
  }

  private static long count() {
    return db.pool.query("SELECT count(*) FROM tasks").execute().await().iterator().next().getLong(0);
  }
}
