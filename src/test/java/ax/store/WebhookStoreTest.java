package ax.store;

import ax.leader.Fence;
import ax.task.NewTask;
import ax.task.TaskStatus;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.OffsetDateTime;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The webhook outbox against a real PostgreSQL (V11): the terminal transition writes the notification
 * in its own statement, a claim is the term's alone until it runs out, outcomes apply only to the claim
 * they belong to, and the third failed try fails it for good.
 */
class WebhookStoreTest {
  private static StoreFixture db;
  private static TaskStore tasks;
  private static WebhookStore webhooks;
  private static LeaseStore leases;
  private Fence fence;

  @BeforeAll
  static void setUp() {
    db = new StoreFixture();
    tasks = new TaskStore(db.pool);
    webhooks = new WebhookStore(db.pool, "node-a");
    leases = new LeaseStore(db.pool);
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  @BeforeEach
  void fresh() {
    db.pool.query("TRUNCATE tasks, task_notifications, notification_attempts, leases, lease_terms").execute().await();
    long epoch = leases.tryAcquire("scheduler", "node-a/1", null, 30_000).await().orElseThrow();
    fence = new Fence("scheduler", "node-a/1", epoch);
  }

  private static long storeWithHook() {
    NewTask t = StoreFixture.httpTask(db.dbNow() + 600_000, TaskStatus.DELAYED);
    NewTask withHook = new NewTask(t.taskId(), t.tenantId(), t.apiKey(), t.taskType(), t.triggerTimeMs(), t.status(),
        t.priority(), t.maxRetry(), t.timeoutMs(), t.callbackUrl(), null, t.payloadJson(), null, 1,
        "http://127.0.0.1:9/done", null);
    return tasks.insert(withHook).await().task().taskId();
  }

  private static void settle(long id, String status) {
    db.pool.preparedQuery("UPDATE tasks SET status = $2, finished_at = now() WHERE task_id = $1")
        .execute(Tuple.of(id, status)).await();
  }

  private static Row notification(long id) {
    return db.pool.query("SELECT * FROM task_notifications WHERE task_id = " + id).execute().await().iterator().next();
  }

  private static WebhookStore.Outcome failed(WebhookStore.Claimed c, long retryAfterMs) {
    return new WebhookStore.Outcome(c, false, 500, "HTTP 500", OffsetDateTime.now(), retryAfterMs);
  }

  @Test
  void theTerminalTransitionWritesTheNotificationAndOtherTasksWriteNone() {
    long hooked = storeWithHook();
    long plain = tasks.insert(StoreFixture.httpTask(db.dbNow(), TaskStatus.READY)).await().task().taskId();
    settle(plain, "SUCCESS");
    db.pool.query("UPDATE tasks SET status = 'READY' WHERE task_id = " + hooked).execute().await();
    assertEquals(0L, db.pool.query("SELECT count(*) FROM task_notifications").execute().await().iterator().next()
        .getLong(0), "only a terminal status of a task with notify_url");
    assertTrue(tasks.cancel("tenant-a", hooked).await().cancelled());
    Row n = notification(hooked);
    assertEquals("CANCELLED", n.getString("status"));
    assertEquals("PENDING", n.getString("state"));
  }

  @Test
  void aClaimIsTheTermsAloneAndNothingIsClaimedWithoutTheLease() {
    long id = storeWithHook();
    settle(id, "SUCCESS");
    assertEquals(List.of(), webhooks.claim(new Fence("scheduler", "node-b/1", fence.epoch() + 1), 10, 10_000).await(),
        "a term that does not hold the lease claims nothing");
    List<WebhookStore.Claimed> claimed = webhooks.claim(fence, 10, 10_000).await();
    assertEquals(1, claimed.size());
    WebhookStore.Claimed c = claimed.get(0);
    assertEquals(1, c.tryNumber());
    assertEquals("SUCCESS", c.status());
    assertEquals("http://127.0.0.1:9/done", c.notifyUrl());
    assertEquals(List.of(), webhooks.claim(fence, 10, 10_000).await(), "claimed: nobody else takes it meanwhile");
  }

  @Test
  void aClaimThatRunsOutIsTakenAgainForTheSameTry() throws Exception {
    long id = storeWithHook();
    settle(id, "FAILED");
    assertEquals(1, webhooks.claim(fence, 10, 50).await().size());
    Thread.sleep(100); // the deliverer died: its claim runs out
    List<WebhookStore.Claimed> again = webhooks.claim(fence, 10, 10_000).await();
    assertEquals(1, again.size());
    assertEquals(1, again.get(0).tryNumber(), "an unrecorded try is made again, not counted");
  }

  @Test
  void failedTriesBackOffAndTheThirdFailsItForGood() throws Exception {
    long id = storeWithHook();
    settle(id, "SUCCESS");
    for (int tryNumber = 1; tryNumber <= 3; tryNumber++) {
      List<WebhookStore.Claimed> claimed = webhooks.claim(fence, 10, 10_000).await();
      assertEquals(1, claimed.size(), "try " + tryNumber);
      assertEquals(tryNumber, claimed.get(0).tryNumber());
      assertEquals(1, webhooks.finish(List.of(failed(claimed.get(0), 100))).await());
      Row n = notification(id);
      assertEquals(tryNumber, n.getInteger("tries"));
      if (tryNumber < 3) {
        assertEquals("PENDING", n.getString("state"));
        assertEquals(List.of(), webhooks.claim(fence, 10, 10_000).await(), "not before its backoff");
        Thread.sleep(150);
      } else {
        assertEquals("FAILED", n.getString("state"));
      }
    }
    assertEquals(List.of(), webhooks.claim(fence, 10, 10_000).await());
    WebhookStore.Notifications listed = webhooks.list("tenant-a", id).await().orElseThrow();
    assertEquals("FAILED", listed.state());
    assertEquals(List.of(1, 2, 3), listed.attempts().stream().map(WebhookStore.Attempt::tryNumber).toList());
    assertEquals(500, listed.attempts().get(0).httpStatus());
    assertTrue(webhooks.list("tenant-b", id).await().isEmpty(), "another tenant's task does not exist for them");
  }

  @Test
  void anOutcomeOfAnotherClaimOrOfAnEndedTermChangesNothing() {
    long id = storeWithHook();
    settle(id, "SUCCESS");
    WebhookStore.Claimed c = webhooks.claim(fence, 10, 10_000).await().get(0);
    WebhookStore.Claimed stale = new WebhookStore.Claimed(c.taskId(), c.tryNumber(), c.epoch() - 1, c.status(),
        c.apiKey(), c.taskType(), c.notifyUrl(), c.resultJson(), c.error(), c.attempts(), c.finishedAt(), c.traceparent());
    assertEquals(0, webhooks.finish(List.of(new WebhookStore.Outcome(stale, true, 200, null, OffsetDateTime.now(), 0)))
        .await());
    assertEquals(1, webhooks.finish(List.of(new WebhookStore.Outcome(c, true, 200, null, OffsetDateTime.now(), 0)))
        .await());
    assertEquals(0, webhooks.finish(List.of(new WebhookStore.Outcome(c, true, 200, null, OffsetDateTime.now(), 0)))
        .await(), "a repeated outcome applies once");
    assertEquals("DELIVERED", notification(id).getString("state"));
    assertEquals(1L, db.pool.query("SELECT count(*) FROM notification_attempts").execute().await().iterator().next()
        .getLong(0));
  }
}
