package ax.store;

import ax.task.NewTask;
import ax.task.TaskRecord;
import ax.task.TaskStatus;
import ax.wheel.ScheduledTask;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Dependencies against a real PostgreSQL (V10): a child waits in CREATED, its parents' terminal
 * transitions — whatever statement makes them — let it go or skip it (and everything waiting on it) in
 * that same statement, and what is let go is announced to a listener after commit.
 */
class DependencyStoreTest {
  private static StoreFixture db;
  private static TaskStore tasks;
  private static ReadyListener listener;
  private static final Set<Long> announced = ConcurrentHashMap.newKeySet();
  private static final AtomicLong skippedAnnounced = new AtomicLong();

  @BeforeAll
  static void setUp() throws Exception {
    db = new StoreFixture();
    tasks = new TaskStore(db.pool);
    listener = new ReadyListener.Connector(Database.connectOptions(db.pg.url())).open(db.vertx,
        list -> list.forEach(t -> announced.add(t.taskId())), skippedAnnounced::addAndGet);
    listener.start();
    // LISTEN is sent once connected: wait until an announcement made now arrives.
    long probe = 1L;
    long deadline = System.currentTimeMillis() + 10_000;
    while (!announced.contains(probe) && System.currentTimeMillis() < deadline) {
      db.pool.query("SELECT ax_announce_ready(ARRAY[1]::bigint[], ARRAY[now()], ARRAY[5]::smallint[])").execute().await();
      Thread.sleep(100);
    }
    assertTrue(announced.contains(probe), "the listener never heard an announcement");
  }

  @AfterAll
  static void tearDown() {
    listener.stop().await();
    db.close();
  }

  @BeforeEach
  void freshTables() {
    db.pool.query("TRUNCATE tasks, task_attempts, task_dependencies, alert_events").execute().await();
    announced.clear();
    skippedAnnounced.set(0);
  }

  private static NewTask pending() {
    return StoreFixture.httpTask(db.dbNow() + 600_000, TaskStatus.DELAYED);
  }

  private static long store(NewTask t) {
    return tasks.insert(t).await().task().taskId();
  }

  private static TaskRecord child(NewTask t, long... parents) {
    return tasks.insertWithParents(t, new long[0], parents).await().task();
  }

  /** A terminal transition as any path writes it: one guarded UPDATE of the status. */
  private static void settle(long id, TaskStatus status) {
    db.pool.preparedQuery("UPDATE tasks SET status = $2, finished_at = now(), updated_at = now() WHERE task_id = $1")
        .execute(Tuple.of(id, status.name())).await();
  }

  private static Row row(long id) {
    return db.pool.preparedQuery("SELECT status, waiting_on, error, next_trigger_time, finished_at FROM tasks"
        + " WHERE task_id = $1").execute(Tuple.of(id)).await().iterator().next();
  }

  private static void awaitAnnounced(long... ids) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 5_000;
    while (System.currentTimeMillis() < deadline) {
      boolean all = true;
      for (long id : ids) {
        all &= announced.contains(id);
      }
      if (all) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("not announced: " + java.util.Arrays.toString(ids) + ", heard " + announced);
  }

  @Test
  void aChildWaitsForEveryParentAndTheLastSuccessLetsItGoAndAnnouncesIt() throws Exception {
    long a = store(pending());
    long b = store(pending());
    NewTask c = StoreFixture.httpTask(db.dbNow() - 1_000, TaskStatus.READY);
    TaskRecord stored = child(c, b, a);
    assertEquals(TaskStatus.CREATED, stored.status());
    assertEquals(List.of(Math.min(a, b), Math.max(a, b)), stored.dependsOn());
    assertEquals(2, row(c.taskId()).getInteger("waiting_on"));
    assertEquals(stored.dependsOn(), tasks.find("tenant-a", c.taskId()).await().orElseThrow().dependsOn());

    settle(a, TaskStatus.SUCCESS);
    assertEquals("CREATED", row(c.taskId()).getString("status"));
    assertEquals(1, row(c.taskId()).getInteger("waiting_on"));

    long before = db.dbNow();
    settle(b, TaskStatus.SUCCESS);
    Row released = row(c.taskId());
    assertEquals("READY", released.getString("status"), "an HTTP task whose time has passed is due at once");
    assertEquals(0, released.getInteger("waiting_on"));
    assertTrue(released.getOffsetDateTime("next_trigger_time").toInstant().toEpochMilli() >= before - 5,
        "due when let go, not at its past trigger time");
    awaitAnnounced(c.taskId());
    assertFalse(announced.contains(a), "only what was let go is announced");
  }

  @Test
  void aChildDueLaterThanItsParentsKeepsItsTriggerTime() throws Exception {
    long a = store(pending());
    long later = db.dbNow() + 300_000;
    NewTask c = StoreFixture.httpTask(later, TaskStatus.DELAYED);
    child(c, a);
    settle(a, TaskStatus.SUCCESS);
    assertEquals("DELAYED", row(c.taskId()).getString("status"));
    assertEquals(later, row(c.taskId()).getOffsetDateTime("next_trigger_time").toInstant().toEpochMilli());
  }

  @Test
  void aParentThatFailsSkipsEverythingWaitingOnItWithAnAlertEach() throws Exception {
    long a = store(pending());
    long e = store(pending());
    NewTask b = pending();
    NewTask c = pending();
    NewTask d = pending();
    child(b, a);
    child(c, b.taskId());
    child(d, a, e);

    settle(a, TaskStatus.FAILED);
    assertEquals("SKIPPED", row(b.taskId()).getString("status"));
    assertEquals("dependency " + a + " ended FAILED", row(b.taskId()).getString("error"));
    assertEquals("SKIPPED", row(c.taskId()).getString("status"));
    assertEquals("dependency " + b.taskId() + " ended SKIPPED", row(c.taskId()).getString("error"));
    assertEquals("dependency " + a + " ended FAILED", row(d.taskId()).getString("error"));
    assertNotNull(row(d.taskId()).getOffsetDateTime("finished_at"));
    assertEquals("DELAYED", row(e).getString("status"), "the other parent is untouched");

    List<Long> alerted = new java.util.ArrayList<>();
    db.pool.query("SELECT task_id FROM alert_events WHERE kind = 'task_skipped' ORDER BY task_id").execute().await()
        .forEach(r -> alerted.add(r.getLong("task_id")));
    assertEquals(List.of(b.taskId(), c.taskId(), d.taskId()).stream().sorted().toList(), alerted);
    long deadline = System.currentTimeMillis() + 5_000;
    while (skippedAnnounced.get() < 3 && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
    assertEquals(3, skippedAnnounced.get(), "the skips are announced for the metric");

    settle(e, TaskStatus.SUCCESS);
    assertEquals("SKIPPED", row(d.taskId()).getString("status"), "a skipped child stays skipped");
  }

  @Test
  void aLongChainIsSkippedInOneStatementWithoutNestingAsDeepAsTheChain() {
    long first = store(pending());
    long previous = first;
    long last = 0;
    for (int i = 0; i < 300; i++) {
      NewTask next = pending();
      child(next, previous);
      previous = next.taskId();
      last = next.taskId();
    }
    settle(first, TaskStatus.CANCELLED);
    assertEquals("SKIPPED", row(last).getString("status"));
    assertEquals(300L, db.pool.query("SELECT count(*) FROM tasks WHERE status = 'SKIPPED'").execute().await()
        .iterator().next().getLong(0));
  }

  @Test
  void cancellingAParentThroughTheApiStoreSkipsItsChild() {
    long a = store(pending());
    NewTask b = pending();
    child(b, a);
    assertTrue(tasks.cancel("tenant-a", a).await().cancelled());
    assertEquals("SKIPPED", row(b.taskId()).getString("status"));
    assertEquals("dependency " + a + " ended CANCELLED", row(b.taskId()).getString("error"));
  }

  @Test
  void parentsThatHaveAlreadyEndedDecideAtOnce() {
    long ok = store(pending());
    long failed = store(pending());
    settle(ok, TaskStatus.SUCCESS);
    settle(failed, TaskStatus.FAILED);

    TaskRecord admitted = child(pending(), ok);
    assertEquals(TaskStatus.DELAYED, admitted.status(), "every parent succeeded: admitted as without dependencies");

    NewTask doomed = pending();
    TaskRecord skipped = child(doomed, ok, failed);
    assertEquals(TaskStatus.SKIPPED, skipped.status());
    assertEquals("dependency " + failed + " ended FAILED", skipped.error());
    assertNotNull(row(doomed.taskId()).getOffsetDateTime("finished_at"));
    assertEquals(1L, db.pool.query("SELECT count(*) FROM alert_events WHERE task_id = " + doomed.taskId())
        .execute().await().iterator().next().getLong(0));
  }

  @Test
  void aParentThatIsNotTheTenantsStoresNothing() {
    NewTask other = new NewTask(77_000_001L, "tenant-b", "key-b", "x", db.dbNow(), TaskStatus.READY, 5, 0, 1000,
        "http://127.0.0.1:9/x", null, null, null);
    store(other);
    long mine = store(pending());
    NewTask c = pending();
    TaskStore.UnknownParents e = assertThrows(TaskStore.UnknownParents.class,
        () -> child(c, mine, other.taskId(), 12345L));
    assertEquals(Set.of(other.taskId(), 12345L), Set.copyOf(e.missing()));
    assertTrue(tasks.find("tenant-a", c.taskId()).await().isEmpty());
    assertEquals(0L, db.pool.query("SELECT count(*) FROM task_dependencies").execute().await().iterator().next()
        .getLong(0));
  }

  @Test
  void aShardedChildIsLetGoWithItsShards() throws Exception {
    long a = store(pending());
    long now = db.dbNow();
    NewTask sharded = new NewTask(88_000_001L, "tenant-a", "key-a", "report.build", now, TaskStatus.DELAYED, 5, 2,
        60_000, null, "reports", null, null, 3);
    long[] shards = {88_000_002L, 88_000_003L, 88_000_004L};
    tasks.insertWithParents(sharded, shards, new long[] {a}).await();
    for (long s : shards) {
      assertEquals("CREATED", row(s).getString("status"));
    }
    settle(a, TaskStatus.SUCCESS);
    assertEquals("DELAYED", row(sharded.taskId()).getString("status"));
    for (long s : shards) {
      assertEquals("DELAYED", row(s).getString("status"));
    }
    awaitAnnounced(sharded.taskId(), shards[0], shards[1], shards[2]);
  }

  @Test
  void aParentSettlingWhileItsChildIsStoredWaitsForItAndThenLetsItGo() throws Exception {
    long a = store(pending());
    NewTask c = StoreFixture.httpTask(db.dbNow(), TaskStatus.READY);
    Promise<Void> commit = Promise.promise();
    Promise<Void> childStored = Promise.promise();
    Future<TaskStore.Inserted> storing = tasks.inTransaction(tx -> tx.insert(c, new long[0], new long[] {a})
        .compose(ins -> {
          childStored.complete();
          return commit.future().map(ins);
        }));
    childStored.future().await();
    Future<?> settling = db.pool.preparedQuery("UPDATE tasks SET status = 'SUCCESS', finished_at = now() "
        + "WHERE task_id = $1").execute(Tuple.of(a));
    Thread.sleep(300);
    assertFalse(settling.isComplete(), "the parent is locked until the child commits");
    commit.complete();
    storing.await();
    settling.await();
    assertEquals("READY", row(c.taskId()).getString("status"), "the parent's SUCCESS found the committed child");
  }

  @Test
  void aTaskWithoutDependantsPaysNoTriggerWork() {
    long a = store(pending());
    assertFalse(db.pool.query("SELECT has_dependants FROM tasks WHERE task_id = " + a).execute().await().iterator()
        .next().getBoolean(0));
    settle(a, TaskStatus.SUCCESS);
    assertNull(row(a).getInteger("waiting_on"));
  }
}
