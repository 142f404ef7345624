package ax.store;

import ax.dispatch.ClaimedTask;
import ax.dispatch.Completion;
import ax.store.ScheduleStore.Fence;
import ax.task.NewTask;
import ax.task.TaskStatus;
import ax.wheel.ScheduledTask;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScheduleStoreTest {
  private static StoreFixture db;
  private static ScheduleStore store;
  private static TaskStore tasks;
  private static LeaseStore leases;
  private Fence fence;

  @BeforeAll
  static void setUp() {
    db = new StoreFixture();
    store = new ScheduleStore(db.pool);
    tasks = new TaskStore(db.pool);
    leases = new LeaseStore(db.pool);
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  @BeforeEach
  void freshLeaseAndTable() {
    db.pool.query("TRUNCATE tasks, task_attempts, leases").execute().await();
    long epoch = leases.tryAcquire("scheduler", "node-a/1", 30_000).await().orElseThrow();
    fence = new Fence("scheduler", "node-a/1", epoch, "node-a");
  }

  private NewTask insert(NewTask t) {
    tasks.insert(t).await();
    return t;
  }

  @Test
  void loaderWalksPendingTasksInTriggerOrderFromItsCursorAndSkipsTerminalOnes() {
    long now = db.dbNow();
    NewTask a = insert(StoreFixture.httpTask(now + 1_000, TaskStatus.DELAYED));
    NewTask b = insert(StoreFixture.httpTask(now + 2_000, TaskStatus.DELAYED));
    NewTask c = insert(StoreFixture.httpTask(now + 2_000, TaskStatus.DELAYED));
    NewTask far = insert(StoreFixture.httpTask(now + 600_000, TaskStatus.DELAYED));
    NewTask cancelled = insert(StoreFixture.httpTask(now + 1_500, TaskStatus.DELAYED));
    tasks.cancel("tenant-a", cancelled.taskId()).await();

    List<ScheduledTask> first = store.loadPending(0, 0, now + 60_000, 2).await();
    assertEquals(List.of(a.taskId(), b.taskId()), first.stream().map(ScheduledTask::taskId).toList());
    ScheduledTask last = first.get(1);
    List<ScheduledTask> second = store.loadPending(last.triggerTimeMs(), last.taskId(), now + 60_000, 10).await();
    assertEquals(List.of(c.taskId()), second.stream().map(ScheduledTask::taskId).toList(),
        "ties on trigger_time are broken by task id; the far task is beyond the horizon");
    assertFalse(second.stream().anyMatch(t -> t.taskId() == far.taskId()));
  }

  @Test
  void claimTakesOnlyDueTasksOnceAndStampsEpochAndAttempt() {
    long now = db.dbNow();
    NewTask due = insert(StoreFixture.httpTask(now - 10, TaskStatus.READY));
    NewTask future = insert(StoreFixture.httpTask(now + 60_000, TaskStatus.DELAYED));

    List<ClaimedTask> claimed = store.claimDue(new long[] {due.taskId(), future.taskId()}, fence).await().http();
    assertEquals(1, claimed.size());
    assertEquals(due.taskId(), claimed.get(0).taskId());
    assertEquals(1, claimed.get(0).attempt());
    assertEquals(List.of(future.taskId()),
        store.notYetDue(new long[] {future.taskId()}).await().stream().map(ScheduledTask::taskId).toList());

    assertTrue(store.claimDue(new long[] {due.taskId()}, fence).await().http().isEmpty(), "a second claim wins nothing");
    var row = db.pool.preparedQuery("SELECT status, epoch, last_run_node FROM tasks WHERE task_id = $1")
        .execute(Tuple.of(due.taskId())).await().iterator().next();
    assertEquals("RUNNING", row.getString("status"));
    assertEquals(fence.epoch(), row.getLong("epoch"));
    assertEquals("node-a", row.getString("last_run_node"));
  }

  @Test
  void claimWithAStaleEpochOrAfterTheLeaseExpiredClaimsNothing() {
    long now = db.dbNow();
    NewTask due = insert(StoreFixture.httpTask(now - 10, TaskStatus.READY));
    Fence stale = new Fence(fence.leaseName(), fence.holder(), fence.epoch() - 1, "node-a");
    assertTrue(store.claimDue(new long[] {due.taskId()}, stale).await().http().isEmpty());
    Fence otherHolder = new Fence(fence.leaseName(), "node-b/1", fence.epoch(), "node-b");
    assertTrue(store.claimDue(new long[] {due.taskId()}, otherHolder).await().http().isEmpty());
    leases.resign("scheduler", "node-a/1", fence.epoch()).await();
    assertTrue(store.claimDue(new long[] {due.taskId()}, fence).await().http().isEmpty(), "expired lease fences the claim");
  }

  @Test
  void dueProcessorTasksAreReadForTheExecutorDispatchWithoutAWrite() {
    long now = db.dbNow();
    NewTask p = insert(StoreFixture.processorTask(now - 5, TaskStatus.DELAYED));
    NewTask later = insert(StoreFixture.processorTask(now + 60_000, TaskStatus.DELAYED));
    ScheduleStore.Claimed claimed = store.claimDue(new long[] {p.taskId(), later.taskId()}, fence).await();
    assertTrue(claimed.http().isEmpty());
    assertEquals(List.of(p.taskId()), claimed.ready().stream().map(r -> r.taskId()).toList(), "only the due one");
    assertEquals(TaskStatus.DELAYED, tasks.find("tenant-a", p.taskId()).await().orElseThrow().status(),
        "the executor dispatch writes it (DELAYED → DISPATCHING) when an executor has room");
    Fence stale = new Fence(fence.leaseName(), fence.holder(), fence.epoch() + 1, fence.nodeId());
    assertTrue(store.claimDue(new long[] {p.taskId()}, stale).await().ready().isEmpty(), "fenced like a claim");
  }

  @Test
  void completionAppliesOnlyToTheRunningAttemptAndLogsIt() {
    long now = db.dbNow();
    NewTask t = insert(StoreFixture.httpTask(now - 10, TaskStatus.READY));
    ClaimedTask c = store.claimDue(new long[] {t.taskId()}, fence).await().http().get(0);

    Completion ok = new Completion(t.taskId(), c.attempt(), TaskStatus.SUCCESS, "{\"ok\":true}", null, 0, -1, "SUCCESS");
    assertEquals(1, store.completeRunning(List.of(ok), fence).await().size());
    assertEquals(0, store.completeRunning(List.of(ok), fence).await().size(), "a duplicate result changes nothing");

    var done = tasks.find("tenant-a", t.taskId()).await().orElseThrow();
    assertEquals(TaskStatus.SUCCESS, done.status());
    assertEquals(1L, db.pool.preparedQuery("SELECT count(*) FROM task_attempts WHERE task_id = $1")
        .execute(Tuple.of(t.taskId())).await().iterator().next().getLong(0));
  }

  @Test
  void aFailureWithRetriesLeftGoesBackToDelayedAtTheBackoffTime() {
    long now = db.dbNow();
    NewTask t = insert(StoreFixture.httpTask(now - 10, TaskStatus.READY));
    ClaimedTask c = store.claimDue(new long[] {t.taskId()}, fence).await().http().get(0);
    long retryAt = now + 10_000;
    Completion retry = new Completion(t.taskId(), c.attempt(), TaskStatus.DELAYED, null, "HTTP 500", 1, retryAt, "FAILED");
    var applied = store.completeRunning(List.of(retry), fence).await();
    assertEquals(1, applied.size());
    assertEquals("DELAYED", applied.get(0).status());
    assertEquals(retryAt, applied.get(0).triggerTimeMs());

    var stored = tasks.find("tenant-a", t.taskId()).await().orElseThrow();
    assertEquals(1, stored.retryCount());
    assertEquals("HTTP 500", stored.error());
  }

  @Test
  void recoveryFindsRunningTasksPastTheirDeadline() {
    long now = db.dbNow();
    NewTask t = insert(StoreFixture.httpTask(now - 10, TaskStatus.READY));
    store.claimDue(new long[] {t.taskId()}, fence).await().http();
    assertTrue(store.overdueRunning(0, 10).await().isEmpty());
    db.pool.preparedQuery("UPDATE tasks SET lease_deadline = now() - interval '1 minute' WHERE task_id = $1")
        .execute(Tuple.of(t.taskId())).await();
    var overdue = store.overdueRunning(5_000, 10).await();
    assertEquals(1, overdue.size());
    assertEquals(1, overdue.get(0).attempt());
  }

  @Test
  void recoveryRequeuesOnlyOverduePendingTasksInsideTheLookback() {
    long now = db.dbNow();
    NewTask overdue = insert(StoreFixture.httpTask(now - 60_000, TaskStatus.DELAYED));
    insert(StoreFixture.httpTask(now - 1_000, TaskStatus.DELAYED)); // inside the grace: the wheel's business
    insert(StoreFixture.httpTask(now - 7_200_000, TaskStatus.DELAYED)); // beyond the lookback
    var found = store.overduePending(3_600_000, 5_000, 100).await();
    assertEquals(List.of(overdue.taskId()), found.stream().map(ScheduledTask::taskId).toList());
  }
}
