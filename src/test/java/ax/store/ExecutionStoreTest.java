package ax.store;

import ax.leader.Fence;
import ax.task.Attempt;
import ax.task.AttemptBudget;
import ax.task.Completion;
import ax.task.NewTask;
import ax.task.OutcomePolicy;
import ax.task.Settled;
import ax.task.RetryBackoff;
import ax.task.TaskStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Transaction;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The executor delivery writes against a real PostgreSQL: every one is fenced by the lease, and
 * outcomes additionally by executor and attempt, so a deposed leader, a foreign executor or a late
 * result changes nothing.
 */
class ExecutionStoreTest {
  private static StoreFixture db;
  private static ExecutionStore store;
  private static ScheduleStore schedule;
  private static TaskStore tasks;
  private static LeaseStore leases;
  private static final OutcomePolicy OUTCOMES = new OutcomePolicy(RetryBackoff.of(1_000));
  private Fence fence;

  @BeforeAll
  static void setUp() {
    db = new StoreFixture();
    store = new ExecutionStore(db.pool, "node-a");
    schedule = new ScheduleStore(db.pool, "node-a");
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
    long epoch = leases.tryAcquire("scheduler", "node-a/1", null, 30_000).await().orElseThrow();
    fence = new Fence("scheduler", "node-a/1", epoch);
  }

  private NewTask ready() {
    NewTask t = StoreFixture.processorTask(db.dbNow() - 5, TaskStatus.DELAYED);
    tasks.insert(t).await();
    assertEquals(1, schedule.claimDue(new long[] {t.taskId()}, fence, 0).await().ready().size());
    return t;
  }

  private TaskStatus status(NewTask t) {
    return tasks.find("tenant-a", t.taskId()).await().orElseThrow().status();
  }

  @Test
  void dispatchTakesDueTasksOnceWithANewAttemptButNeverAFutureOne() {
    NewTask future = StoreFixture.processorTask(db.dbNow() + 60_000, TaskStatus.DELAYED);
    tasks.insert(future).await();
    assertTrue(store.dispatch(new long[] {future.taskId()}, "ex-1", 2_000, 0, fence).await().isEmpty());
    NewTask t = ready();
    List<Attempt> first = store.dispatch(new long[] {t.taskId()}, "ex-1", 2_000, 0, fence).await();
    assertEquals(List.of(new Attempt(t.taskId(), 1)), first);
    assertEquals(TaskStatus.DISPATCHING, status(t));
    assertTrue(store.dispatch(new long[] {t.taskId()}, "ex-2", 2_000, 0, fence).await().isEmpty(),
        "a DISPATCHING task cannot be handed to a second executor");
  }

  @Test
  void aDispatchAheadTakesTasksDueWithinTheLeadAndCountsTheirDeadlineFromTheTriggerTime() {
    long now = db.dbNow();
    NewTask soon = StoreFixture.processorTask(now + 2_000, TaskStatus.DELAYED);
    NewTask later = StoreFixture.processorTask(now + 60_000, TaskStatus.DELAYED);
    tasks.insert(soon).await();
    tasks.insert(later).await();
    List<Attempt> written = store.dispatch(new long[] {soon.taskId(), later.taskId()}, "ex-1", 2_000, 5_000, fence)
        .await();
    assertEquals(List.of(new Attempt(soon.taskId(), 1)), written, "only what is due within the lead");
    assertEquals(TaskStatus.DELAYED, status(later));
    // the executor may take it at its trigger time plus the ack timeout, then run it for timeout_ms (60 s)
    long ms = db.pool.query("SELECT extract(epoch FROM lease_deadline - next_trigger_time) * 1000 AS ms FROM tasks"
        + " WHERE task_id = " + soon.taskId()).execute().await().iterator().next().getNumeric("ms").longValue();
    assertEquals(62_000, ms);
  }

  @Test
  void aDeposedLeaderCanNeitherDispatchNorComplete() {
    NewTask t = ready();
    Fence stale = new Fence(fence.lease(), fence.holder(), fence.epoch() + 1);
    assertTrue(store.dispatch(new long[] {t.taskId()}, "ex-1", 2_000, 0, stale).await().isEmpty());
    Attempt d = store.dispatch(new long[] {t.taskId()}, "ex-1", 2_000, 0, fence).await().get(0);
    Completion ok = OUTCOMES.succeeded(t.taskId(), d.attempt(), 0, "{\"ok\":true}");
    // not "refused": the executor drops a refused result, and this one is still the successor's to write
    assertFencedOut(store.complete(List.of(ok), "ex-1", stale));
    assertEquals(TaskStatus.DISPATCHING, status(t));
  }

  @Test
  void outcomesReachingALeaderWhoseLeaseLapsedAreNotWrittenAndNotRefused() {
    NewTask t = ready();
    Attempt d = store.dispatch(new long[] {t.taskId()}, "ex-1", 2_000, 0, fence).await().get(0);
    Completion ok = OUTCOMES.succeeded(t.taskId(), d.attempt(), 0, null);
    // the node still believes it leads (its step-down comes a little later), the database says otherwise
    db.pool.query("UPDATE leases SET expires_at = now() - interval '1 millisecond'").execute().await();
    assertFencedOut(store.complete(List.of(ok), "ex-1", fence));
    assertEquals(TaskStatus.DISPATCHING, status(t));
    assertEquals(0, db.pool.query("SELECT 1 FROM task_attempts").execute().await().rowCount());

    long successor = leases.tryAcquire("scheduler", "node-b/1", null, 30_000).await().orElseThrow();
    List<Settled> settled = store.complete(List.of(ok), "ex-1", new Fence("scheduler", "node-b/1", successor)).await();
    assertEquals(List.of(TaskStatus.SUCCESS), settled.stream().map(Settled::status).toList(),
        "the result sent again to the successor is applied");
  }

  private static void assertFencedOut(io.vertx.core.Future<List<Settled>> completion) {
    Throwable failure = assertThrows(Exception.class, completion::await);
    assertTrue(failure instanceof FencedOut || failure.getCause() instanceof FencedOut, failure.toString());
  }

  @Test
  void ackMakesItRunningAndOnlyTheExecutorHoldingTheAttemptCanComplete() {
    NewTask t = ready();
    Attempt d = store.dispatch(new long[] {t.taskId()}, "ex-1", 2_000, 0, fence).await().get(0);
    assertEquals(0, store.acked(List.of(d), "ex-2", fence).await(), "only the addressee acks");
    assertEquals(1, store.acked(List.of(d), "ex-1", fence).await());
    assertEquals(TaskStatus.RUNNING, status(t));

    Completion ok = OUTCOMES.succeeded(t.taskId(), d.attempt(), 0, "{\"by\":\"ex-1\"}");
    assertTrue(store.complete(List.of(ok), "ex-2", fence).await().isEmpty(), "a foreign executor is refused");
    Completion stale = OUTCOMES.succeeded(t.taskId(), d.attempt() + 1, 0, "{}");
    assertTrue(store.complete(List.of(stale), "ex-1", fence).await().isEmpty(), "another attempt is refused");
    List<Settled> settled = store.complete(List.of(ok), "ex-1", fence).await();
    assertEquals(1, settled.size());
    assertEquals(TaskStatus.SUCCESS, settled.get(0).status());
    assertEquals("{\"by\": \"ex-1\"}", settled.get(0).resultJson());
    assertTrue(store.complete(List.of(ok), "ex-1", fence).await().isEmpty(), "a duplicate result changes nothing");
    assertEquals(1, db.pool.query("SELECT 1 FROM task_attempts WHERE executor_id = 'ex-1' AND outcome = 'SUCCESS'")
        .execute().await().rowCount());
  }

  @Test
  void aResultIsAcceptedBeforeTheAckWasWritten() {
    NewTask t = ready();
    Attempt d = store.dispatch(new long[] {t.taskId()}, "ex-1", 2_000, 0, fence).await().get(0);
    Completion ok = OUTCOMES.succeeded(t.taskId(), d.attempt(), 0, null);
    assertEquals(1, store.complete(List.of(ok), "ex-1", fence).await().size());
    assertEquals(0, store.acked(List.of(d), "ex-1", fence).await(), "the late ack does not resurrect it");
    assertEquals(TaskStatus.SUCCESS, status(t));
  }

  @Test
  void theAckNeverWaitsForARowAResultWriteHolds() throws Exception {
    NewTask held = ready();
    NewTask free = ready();
    // Given in descending order: the store sorts every batch by task id before writing.
    List<Attempt> both = store.dispatch(new long[] {free.taskId(), held.taskId()}, "ex-1", 2_000, 0, fence).await();
    assertEquals(2, both.size());
    SqlConnection resultWriter = db.pool.getConnection().await();
    try {
      Transaction tx = resultWriter.begin().await();
      resultWriter.query("SELECT 1 FROM tasks WHERE task_id = " + held.taskId() + " FOR UPDATE").execute().await();
      int acked = store.acked(both, "ex-1", fence).toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
      assertEquals(1, acked, "the row another transaction holds is skipped, not waited for");
      tx.rollback().await();
    } finally {
      resultWriter.close().await();
    }
    assertEquals(TaskStatus.RUNNING, status(free));
    assertEquals(TaskStatus.DISPATCHING, status(held), "still covered by its DISPATCHING deadline");
  }

  @Test
  void overlappingAcksAndResultBatchesInAnyOrderAllSettle() {
    List<NewTask> batch = new java.util.ArrayList<>();
    for (int i = 0; i < 60; i++) {
      batch.add(ready());
    }
    long[] ids = batch.stream().mapToLong(NewTask::taskId).toArray();
    List<Attempt> out = store.dispatch(ids, "ex-1", 2_000, 0, fence).await();
    assertEquals(60, out.size());
    List<Attempt> reversed = new java.util.ArrayList<>(out);
    java.util.Collections.reverse(reversed);
    List<Completion> results = reversed.stream()
        .map(d -> OUTCOMES.succeeded(d.taskId(), d.attempt(), 0, null)).toList();
    // Two result batches and two acks over the same rows at once, as the leader can issue them.
    var all = io.vertx.core.Future.all(store.complete(results.subList(0, 40), "ex-1", fence),
        store.acked(reversed, "ex-1", fence), store.complete(results.subList(20, 60), "ex-1", fence),
        store.acked(out, "ex-1", fence));
    all.await();
    assertEquals(60, db.pool.query("SELECT 1 FROM tasks WHERE status = 'SUCCESS'").execute().await().rowCount());
    assertEquals(60, db.pool.query("SELECT 1 FROM task_attempts").execute().await().rowCount(),
        "one attempt row per task, though 20 results were sent twice");
  }

  @Test
  void rejectedTasksGoBackToReadyAndAreFoundByTheTopUp() {
    NewTask t = ready();
    Attempt d = store.dispatch(new long[] {t.taskId()}, "ex-1", 2_000, 0, fence).await().get(0);
    assertEquals(List.of(t.taskId()), store.release(List.of(d), "ex-1", fence).await());
    assertEquals(TaskStatus.READY, status(t));
    assertEquals(List.of(t.taskId()), store.loadReady(10, List.of("reports")).await().stream()
        .map(r -> r.taskId()).toList());
    assertTrue(store.loadReady(10, List.of("other")).await().isEmpty(), "only processors someone serves");
    Attempt again = store.dispatch(new long[] {t.taskId()}, "ex-2", 2_000, 0, fence).await().get(0);
    assertEquals(d.attempt() + 1, again.attempt(), "every hand-over is a new attempt");
  }

  @Test
  void anAttemptWhoseAckWasNotWrittenDoesNotInheritThePreviousAttemptsStart() throws Exception {
    NewTask t = ready();
    Attempt first = store.dispatch(new long[] {t.taskId()}, "ex-1", 2_000, 0, fence).await().get(0);
    store.acked(List.of(first), "ex-1", fence).await();
    String firstStart = db.pool.query("SELECT started_at::text FROM tasks WHERE task_id = " + t.taskId())
        .execute().await().iterator().next().getString(0);
    Thread.sleep(20);
    AttemptBudget held = store.heldBy("ex-1", 100).await().get(0); // ex-1 went OFFLINE: a retry in 1 s
    store.complete(List.of(OUTCOMES.failed(t.taskId(), held.attempt(), held.retryCount(), held.maxRetry(),
        "executor went OFFLINE", false, db.dbNow())), "ex-1", fence).await();
    Attempt second = store.dispatch(new long[] {t.taskId()}, "ex-2", 2_000, 5_000, fence).await().get(0);
    // the RUNNING write is informative and may be skipped (SKIP LOCKED): here the result comes first
    store.complete(List.of(OUTCOMES.succeeded(t.taskId(), second.attempt(), 0, "{}")), "ex-2", fence).await();

    // it once carried the first attempt's start, which the executor-crash fault row read as an overlap
    assertEquals(1, db.pool.query("SELECT 1 FROM task_attempts WHERE task_id = " + t.taskId() + " AND attempt = "
        + second.attempt() + " AND started_at > '" + firstStart + "'::timestamptz + interval '10 milliseconds'")
        .execute().await().rowCount(), "the second attempt's started_at is its own, not " + firstStart);
  }

  @Test
  void whatAnOfflineExecutorHeldGoesThroughTheRetryPolicy() {
    NewTask t = ready();
    Attempt d = store.dispatch(new long[] {t.taskId()}, "ex-1", 2_000, 0, fence).await().get(0);
    store.acked(List.of(d), "ex-1", fence).await();
    List<AttemptBudget> held = store.heldBy("ex-1", 100).await();
    assertEquals(1, held.size());
    Completion lost = OUTCOMES.failed(t.taskId(), held.get(0).attempt(), held.get(0).retryCount(),
        held.get(0).maxRetry(), "executor went OFFLINE", false, db.dbNow());
    List<Settled> settled = store.complete(List.of(lost), "ex-1", fence).await();
    assertEquals(TaskStatus.DELAYED, settled.get(0).status(), "a retry is scheduled (max_retry 2)");
    Completion late = OUTCOMES.succeeded(t.taskId(), d.attempt(), 0, null);
    assertTrue(store.complete(List.of(late), "ex-1", fence).await().isEmpty(),
        "the OFFLINE executor's late result for that attempt is refused");
  }

  @Test
  void aShardedParentNeverRunsItselfAndSettlesFromItsShards() {
    long now = db.dbNow();
    NewTask parent = new NewTask(9_000_001L, "tenant-a", "key-a", "report.build", now - 5, TaskStatus.DELAYED, 5, 0,
        60_000, null, "reports", "{\"job\":1}", null, 3);
    tasks.insert(parent, new long[] {9_000_010L, 9_000_011L, 9_000_012L}).await();
    assertTrue(schedule.loadPending(0, 0, now + 60_000, 10).await().stream()
        .noneMatch(t -> t.taskId() == parent.taskId()), "the parent is not loaded into the wheel");
    var claimed = schedule.claimDue(new long[] {parent.taskId(), 9_000_010L, 9_000_011L, 9_000_012L}, fence, 0).await();
    assertEquals(List.of(0, 1, 2), claimed.ready().stream().map(r -> r.shardIndex()).sorted().toList());
    assertTrue(claimed.ready().stream().noneMatch(r -> r.taskId() == parent.taskId()));

    List<Settled> settled = new java.util.ArrayList<>();
    for (long shard : new long[] {9_000_012L, 9_000_010L}) {
      Attempt d = store.dispatch(new long[] {shard}, "ex-1", 2_000, 0, fence).await().get(0);
      settled.addAll(store.complete(List.of(OUTCOMES.succeeded(shard, d.attempt(), 0, "{\"s\":" + shard + "}")),
          "ex-1", fence).await());
    }
    assertEquals(parent.taskId(), settled.get(0).parentId());
    assertTrue(store.settleParents(List.of(parent.taskId()), fence).await().isEmpty(), "one shard is still out");
    assertEquals(TaskStatus.RUNNING, status(parent));

    Attempt last = store.dispatch(new long[] {9_000_011L}, "ex-2", 2_000, 0, fence).await().get(0);
    store.complete(List.of(OUTCOMES.succeeded(9_000_011L, last.attempt(), 0, "{\"s\":9000011}")), "ex-2", fence).await();
    List<Settled> done = store.settleParents(List.of(parent.taskId()), fence).await();
    assertEquals(TaskStatus.SUCCESS, done.get(0).status());
    assertEquals("[{\"s\": 9000010}, {\"s\": 9000011}, {\"s\": 9000012}]", done.get(0).resultJson(),
        "results in shard order");
  }

  @Test
  void oneShardFailingForGoodFailsTheParent() {
    long now = db.dbNow();
    NewTask parent = new NewTask(9_100_001L, "tenant-a", "key-a", "report.build", now - 5, TaskStatus.DELAYED, 5, 0,
        60_000, null, "reports", null, null, 2);
    tasks.insert(parent, new long[] {9_100_010L, 9_100_011L}).await();
    schedule.claimDue(new long[] {9_100_010L, 9_100_011L}, fence, 0).await();
    Attempt d = store.dispatch(new long[] {9_100_010L}, "ex-1", 2_000, 0, fence).await().get(0);
    store.complete(List.of(OUTCOMES.failed(9_100_010L, d.attempt(), 0, 0, "boom", false, now)), "ex-1", fence).await();
    List<Settled> done = store.settleParents(List.of(parent.taskId()), fence).await();
    assertEquals(TaskStatus.FAILED, done.get(0).status());
    assertEquals("1 of 2 shards failed", done.get(0).error());
  }
}
