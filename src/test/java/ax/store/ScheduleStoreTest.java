package ax.store;

import ax.leader.Fence;
import ax.task.AttemptBudget;
import ax.task.Completion;
import ax.task.Completion.AttemptOutcome;
import ax.task.HttpTask;
import ax.task.NewTask;
import ax.task.OutcomePolicy;
import ax.task.RetryBackoff;
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
    store = new ScheduleStore(db.pool, "node-a");
    tasks = new TaskStore(db.pool);
    leases = new LeaseStore(db.pool);
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  @BeforeEach
  void freshLeaseAndTable() {
    db.pool.query("TRUNCATE tasks, task_attempts, leases, lease_terms").execute().await();
    long epoch = leases.tryAcquire("scheduler", "node-a/1", "member-a", 30_000).await().orElseThrow();
    fence = new Fence("scheduler", "node-a/1", epoch);
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

    List<HttpTask> claimed = store.claimDue(new long[] {due.taskId(), future.taskId()}, fence, 0).await().http();
    assertEquals(1, claimed.size());
    assertEquals(due.taskId(), claimed.get(0).taskId());
    assertEquals(1, claimed.get(0).attempt());
    assertEquals(List.of(future.taskId()),
        store.notYetDue(new long[] {future.taskId()}).await().stream().map(ScheduledTask::taskId).toList());

    assertTrue(store.claimDue(new long[] {due.taskId()}, fence, 0).await().http().isEmpty(), "a second claim wins nothing");
    var row = db.pool.preparedQuery("SELECT status, epoch, last_run_node FROM tasks WHERE task_id = $1")
        .execute(Tuple.of(due.taskId())).await().iterator().next();
    assertEquals("RUNNING", row.getString("status"));
    assertEquals(fence.epoch(), row.getLong("epoch"));
    assertEquals("node-a", row.getString("last_run_node"));
  }

  @Test
  void aClaimLeadTakesTasksDueWithinItAndCountsTheRunDeadlineFromTheTriggerTime() {
    long now = db.dbNow();
    NewTask soon = insert(StoreFixture.httpTask(now + 5_000, TaskStatus.DELAYED));
    NewTask soonProcessor = insert(StoreFixture.processorTask(now + 5_000, TaskStatus.DELAYED));
    NewTask beyond = insert(StoreFixture.httpTask(now + 30_000, TaskStatus.DELAYED));
    long[] ids = {soon.taskId(), soonProcessor.taskId(), beyond.taskId()};

    assertEquals(0, store.claimDue(ids, fence, 0).await().size(), "no lead: nothing is due yet");
    ScheduleStore.Claimed claimed = store.claimDue(ids, fence, 10_000).await();
    assertEquals(List.of(soon.taskId()), claimed.http().stream().map(HttpTask::taskId).toList());
    assertEquals(List.of(soonProcessor.taskId()), claimed.ready().stream().map(r -> r.taskId()).toList(),
        "only what is due within the lead");
    var row = db.pool.preparedQuery("""
            SELECT status, extract(epoch FROM started_at - next_trigger_time) AS started_after_due,
                   extract(epoch FROM lease_deadline - next_trigger_time) * 1000 AS deadline_after_due_ms, timeout_ms
              FROM tasks WHERE task_id = $1""")
        .execute(Tuple.of(soon.taskId())).await().iterator().next();
    assertEquals("RUNNING", row.getString("status"));
    assertEquals(0.0, row.getNumeric("started_after_due").doubleValue(), 1e-6,
        "claimed ahead, the attempt starts at the trigger time");
    assertEquals(row.getInteger("timeout_ms").doubleValue(), row.getNumeric("deadline_after_due_ms").doubleValue(),
        1e-3, "the run deadline counts from the trigger time, not from the early claim");
    assertEquals(List.of(beyond.taskId()),
        store.notYetDue(new long[] {beyond.taskId()}).await().stream().map(ScheduledTask::taskId).toList());
  }

  @Test
  void claimWithAStaleEpochOrAfterTheLeaseExpiredClaimsNothing() {
    long now = db.dbNow();
    NewTask due = insert(StoreFixture.httpTask(now - 10, TaskStatus.READY));
    Fence stale = new Fence(fence.lease(), fence.holder(), fence.epoch() + 1);
    assertTrue(store.claimDue(new long[] {due.taskId()}, stale, 0).await().http().isEmpty());
    Fence otherHolder = new Fence(fence.lease(), "node-b/1", fence.epoch());
    assertTrue(store.claimDue(new long[] {due.taskId()}, otherHolder, 0).await().http().isEmpty());
    leases.resign("scheduler", "node-a/1", fence.epoch()).await();
    assertTrue(store.claimDue(new long[] {due.taskId()}, fence, 0).await().http().isEmpty(), "expired lease fences the claim");
  }

  @Test
  void dueProcessorTasksAreReadForTheExecutorDispatchWithoutAWrite() {
    long now = db.dbNow();
    NewTask p = insert(StoreFixture.processorTask(now - 5, TaskStatus.DELAYED));
    NewTask later = insert(StoreFixture.processorTask(now + 60_000, TaskStatus.DELAYED));
    ScheduleStore.Claimed claimed = store.claimDue(new long[] {p.taskId(), later.taskId()}, fence, 0).await();
    assertTrue(claimed.http().isEmpty());
    assertEquals(List.of(p.taskId()), claimed.ready().stream().map(r -> r.taskId()).toList(), "only the due one");
    assertEquals(TaskStatus.DELAYED, tasks.find("tenant-a", p.taskId()).await().orElseThrow().status(),
        "the executor dispatch writes it (DELAYED → DISPATCHING) when an executor has room");
    Fence stale = new Fence(fence.lease(), fence.holder(), fence.epoch() + 1);
    assertTrue(store.claimDue(new long[] {p.taskId()}, stale, 0).await().ready().isEmpty(), "fenced like a claim");
  }

  @Test
  void completionAppliesOnlyToTheRunningAttemptAndLogsIt() {
    long now = db.dbNow();
    NewTask t = insert(StoreFixture.httpTask(now - 10, TaskStatus.READY));
    HttpTask c = store.claimDue(new long[] {t.taskId()}, fence, 0).await().http().get(0);

    Completion ok = new Completion(t.taskId(), c.attempt(), TaskStatus.SUCCESS, "{\"ok\":true}", null, 0, -1,
        AttemptOutcome.SUCCESS);
    assertEquals(1, store.completeCalls(List.of(ok)).await().size());
    assertEquals(0, store.completeCalls(List.of(ok)).await().size(), "a duplicate result changes nothing");

    var done = tasks.find("tenant-a", t.taskId()).await().orElseThrow();
    assertEquals(TaskStatus.SUCCESS, done.status());
    assertEquals(1L, db.pool.preparedQuery("SELECT count(*) FROM task_attempts WHERE task_id = $1")
        .execute(Tuple.of(t.taskId())).await().iterator().next().getLong(0));
  }

  @Test
  void aFailureWithRetriesLeftGoesBackToDelayedAtTheBackoffTime() {
    long now = db.dbNow();
    NewTask t = insert(StoreFixture.httpTask(now - 10, TaskStatus.READY));
    HttpTask c = store.claimDue(new long[] {t.taskId()}, fence, 0).await().http().get(0);
    long retryAt = now + 10_000;
    Completion retry = new Completion(t.taskId(), c.attempt(), TaskStatus.DELAYED, null, "HTTP 500", 1, retryAt,
        AttemptOutcome.FAILED);
    var applied = store.completeCalls(List.of(retry)).await();
    assertEquals(1, applied.size());
    assertEquals(TaskStatus.DELAYED, applied.get(0).status());
    assertEquals(retryAt, applied.get(0).dueMs());

    var stored = tasks.find("tenant-a", t.taskId()).await().orElseThrow();
    assertEquals(1, stored.retryCount());
    assertEquals("HTTP 500", stored.error());
    assertEquals(now - 10, stored.triggerTime().toInstant().toEpochMilli(), "trigger_time stays what the caller asked");
    assertEquals(List.of(t.taskId()), store.loadPending(0, 0, retryAt + 1, 10).await().stream()
        .map(ScheduledTask::taskId).toList(), "the loader finds it at its next trigger time");
    assertTrue(store.loadPending(0, 0, retryAt - 1, 10).await().isEmpty());
  }

  @Test
  void recoveryFindsRunningTasksPastTheirDeadline() {
    long now = db.dbNow();
    NewTask t = insert(StoreFixture.httpTask(now - 10, TaskStatus.READY));
    store.claimDue(new long[] {t.taskId()}, fence, 0).await().http();
    assertTrue(store.overdueRunning(0, 10).await().isEmpty());
    db.pool.preparedQuery("UPDATE tasks SET lease_deadline = now() - interval '1 minute' WHERE task_id = $1")
        .execute(Tuple.of(t.taskId())).await();
    var overdue = store.overdueRunning(5_000, 10).await();
    assertEquals(1, overdue.size());
    assertEquals(1, overdue.get(0).attempt().attempt());
    assertTrue(overdue.get(0).http());
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

  @Test
  void theOutcomeOfACallIsWrittenByAttemptEvenWithoutTheLease() {
    long now = db.dbNow();
    NewTask t = insert(StoreFixture.httpTask(now - 10, TaskStatus.READY));
    HttpTask c = store.claimDue(new long[] {t.taskId()}, fence, 0).await().http().get(0);
    leases.resign("scheduler", "node-a/1", fence.epoch()).await(); // the node lost its term meanwhile
    Completion ok = new Completion(t.taskId(), c.attempt(), TaskStatus.SUCCESS, null, null, 0, -1,
        AttemptOutcome.SUCCESS);
    assertEquals(1, store.completeCalls(List.of(ok)).await().size(), "the call happened: its outcome is the truth");
    assertEquals(TaskStatus.SUCCESS, tasks.find("tenant-a", t.taskId()).await().orElseThrow().status());
  }

  @Test
  void aCallClaimedAheadAndLostBeforeItsTriggerTimeIsFiredAgainAtThatTimeNotBefore() {
    long now = db.dbNow();
    NewTask t = insert(StoreFixture.httpTask(now + 5_000, TaskStatus.DELAYED));
    HttpTask c = store.claimDue(new long[] {t.taskId()}, fence, 10_000).await().http().get(0);
    Completion lost = new OutcomePolicy(RetryBackoff.defaults())
        .lost(new AttemptBudget(t.taskId(), c.attempt(), 0, 2, 0), "holder left", now);
    var settled = store.settleLost(List.of(lost), fence).await();
    assertEquals(TaskStatus.DELAYED, settled.get(0).status());
    assertEquals(now + 5_000, settled.get(0).dueMs(), "due again at its own trigger time, not at the loss");
  }

  @Test
  void aLostCallIsFiredAgainWithoutUsingARetryAndItsLateOutcomeIsRefused() {
    long now = db.dbNow();
    NewTask t = insert(StoreFixture.httpTask(now - 10, TaskStatus.READY));
    HttpTask c = store.claimDue(new long[] {t.taskId()}, fence, 0).await().http().get(0);
    AttemptBudget running = new AttemptBudget(t.taskId(), c.attempt(), 0, 2, 0);
    Completion lost = new OutcomePolicy(RetryBackoff.defaults()).lost(running, "holder left", now);
    Fence stale = new Fence(fence.lease(), fence.holder(), fence.epoch() + 1);
    assertTrue(store.settleLost(List.of(lost), stale).await().isEmpty(), "recovery writes are fenced by the term");
    var settled = store.settleLost(List.of(lost), fence).await();
    assertEquals(TaskStatus.DELAYED, settled.get(0).status());
    assertEquals(now, settled.get(0).dueMs(), "due again at once");

    var row = db.pool.preparedQuery("SELECT retry_count, refires, trigger_time FROM tasks WHERE task_id = $1")
        .execute(Tuple.of(t.taskId())).await().iterator().next();
    assertEquals(0, row.getInteger("retry_count"), "a lost attempt does not use a retry");
    assertEquals(1, row.getInteger("refires"));
    assertEquals("LOST", db.pool.preparedQuery("SELECT outcome FROM task_attempts WHERE task_id = $1")
        .execute(Tuple.of(t.taskId())).await().iterator().next().getString("outcome"));

    Completion late = new Completion(t.taskId(), c.attempt(), TaskStatus.SUCCESS, null, null, 0, -1,
        AttemptOutcome.SUCCESS);
    assertTrue(store.completeCalls(List.of(late)).await().isEmpty(),
        "the old holder's late outcome is refused: the task moved on to another attempt");
  }

  @Test
  void theCallsOfOlderTermsAreFoundWithWhoHeldThem() {
    long now = db.dbNow();
    NewTask t = insert(StoreFixture.httpTask(now - 10, TaskStatus.READY));
    store.claimDue(new long[] {t.taskId()}, fence, 0).await();
    assertTrue(store.termsWithCallsInFlight("scheduler", fence.epoch()).await().isEmpty(), "not older than ours");
    var terms = store.termsWithCallsInFlight("scheduler", fence.epoch() + 1).await();
    assertEquals(List.of(new ScheduleStore.TermInFlight(fence.epoch(), "node-a/1", "member-a")), terms);
    assertEquals(List.of(t.taskId()), store.callsOfTerms(List.of(fence.epoch()), 10).await().stream()
        .map(AttemptBudget::taskId).toList());
  }

  @Test
  void rescuingUnackedDispatchesIsAFencedLeaderWrite() {
    long now = db.dbNow();
    NewTask p = insert(StoreFixture.processorTask(now - 5, TaskStatus.DELAYED));
    new ExecutionStore(db.pool, "node-a").dispatch(new long[] {p.taskId()}, "ex-1", 0, 0, fence).await();
    db.pool.preparedQuery("UPDATE tasks SET lease_deadline = now() - interval '1 second' WHERE task_id = $1")
        .execute(Tuple.of(p.taskId())).await();
    Fence stale = new Fence(fence.lease(), fence.holder(), fence.epoch() + 1);
    assertTrue(store.rescueUnacked(stale).await().isEmpty());
    assertEquals(List.of(p.taskId()), store.rescueUnacked(fence).await().stream().map(ScheduledTask::taskId).toList());
    assertEquals(TaskStatus.READY, tasks.find("tenant-a", p.taskId()).await().orElseThrow().status());
  }
}
