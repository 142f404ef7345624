package ax.store;

import ax.task.NewTask;
import ax.task.TaskRecord;
import ax.task.TaskStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** TaskStore's list against the real PostgreSQL: the order, the position a page ends at, the filters. */
class TaskStoreTest {
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

  /** Every page of {@code limit}, each starting after the previous page's last task, until one is short. */
  private List<Long> allPages(String tenant, TaskStatus status, String type, int limit) {
    List<Long> ids = new ArrayList<>();
    TaskStore.ListPosition after = null;
    for (int page = 0; page < 100; page++) {
      List<TaskRecord> rows = tasks.list(tenant, status, type, after, limit).await();
      rows.forEach(r -> ids.add(r.taskId()));
      if (rows.size() < limit) {
        return ids;
      }
      TaskRecord last = rows.get(rows.size() - 1);
      after = new TaskStore.ListPosition(last.createdAt(), last.taskId());
    }
    throw new AssertionError("more than 100 pages");
  }

  @Test
  void pagesAreNewestFirstAndTasksCreatedTogetherAreOrderedByIdDescending() {
    long now = db.dbNow();
    List<Long> expected = new ArrayList<>();
    NewTask first = StoreFixture.httpTask(now + 60_000, TaskStatus.DELAYED);
    tasks.insert(first).await();
    // One statement: these share created_at (now() of its transaction).
    List<NewTask> together = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      together.add(StoreFixture.httpTask(now + 60_000, TaskStatus.DELAYED));
    }
    tasks.insertMany(together).await();
    NewTask last = StoreFixture.httpTask(now + 60_000, TaskStatus.DELAYED);
    tasks.insert(last).await();

    expected.add(last.taskId());
    together.stream().map(NewTask::taskId).sorted((a, b) -> Long.compare(b, a)).forEach(expected::add);
    expected.add(first.taskId());
    for (int limit : new int[] {1, 2, 3, 7, 50}) {
      assertEquals(expected, allPages("tenant-a", null, null, limit), "page size " + limit);
    }
  }

  /** The batch insert answers without reading its rows back: what it answers is what a read finds. */
  @Test
  void whatTheBatchInsertAnswersIsWhatIsStored() {
    long now = db.dbNow();
    List<NewTask> batch = List.of(StoreFixture.httpTask(now + 60_000, TaskStatus.DELAYED),
        StoreFixture.processorTask(now + 1_234, TaskStatus.READY),
        new NewTask(9_300_000L, "tenant-a", "key-a", "coupon.grant", now + 5_555, TaskStatus.DELAYED, 9, 7, 1_500,
            "http://127.0.0.1:9/hook", null, "{\"b\":[1,2.5,\"x\"],\"a\":{\"z\":null}}", "order-77", 1,
            "http://127.0.0.1:9/notify", java.util.UUID.randomUUID()));
    List<TaskStore.Inserted> answered = tasks.insertMany(batch).await();
    for (TaskStore.Inserted ins : answered) {
      TaskRecord read = tasks.find("tenant-a", ins.task().taskId()).await().orElseThrow();
      TaskRecord got = ins.task();
      assertEquals(new io.vertx.core.json.JsonObject().put("p", read.payload() == null ? null
              : io.vertx.core.json.Json.decodeValue(read.payload())),
          new io.vertx.core.json.JsonObject().put("p", got.payload() == null ? null
              : io.vertx.core.json.Json.decodeValue(got.payload())), "payload of " + got.taskId());
      assertEquals(withoutPayload(read), withoutPayload(got), "task " + got.taskId());
    }
  }

  /** The task with no payload: payloads are compared as JSON (jsonb does not keep the submitted text). */
  private static TaskRecord withoutPayload(TaskRecord t) {
    return new TaskRecord(t.taskId(), t.tenantId(), t.taskType(), t.triggerTime(), t.status(), t.priority(),
        t.maxRetry(), t.retryCount(), t.attempt(), t.timeoutMs(), t.callbackUrl(), t.processor(), null, t.bizKey(),
        t.shardTotal(), t.lastRunNode(), t.result(), t.error(), t.createdAt(), t.updatedAt(), t.startedAt(),
        t.finishedAt(), t.scheduleId(), t.scheduledTime(), t.dependsOn(), t.notifyUrl(), t.dedupe());
  }

  @Test
  void filtersAndTheTenantHoldOnEveryPageAndShardsAreNeverListed() {
    long now = db.dbNow();
    List<Long> cancelledGrants = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      NewTask t = StoreFixture.httpTask(now + 60_000, TaskStatus.DELAYED);
      tasks.insert(t).await();
      if (i % 2 == 0) {
        tasks.cancel("tenant-a", t.taskId()).await();
        cancelledGrants.add(0, t.taskId());
      }
      tasks.insert(StoreFixture.processorTask(now + 60_000, TaskStatus.DELAYED)).await();
    }
    NewTask sharded = new NewTask(9_200_000L, "tenant-a", "key-a", "report.build", now + 60_000, TaskStatus.DELAYED,
        5, 2, 60_000, null, "reports", null, null, 3);
    tasks.insert(sharded, new long[] {9_200_001L, 9_200_002L, 9_200_003L}).await();

    assertEquals(cancelledGrants, allPages("tenant-a", TaskStatus.CANCELLED, "coupon.grant", 2));
    assertEquals(List.of(), allPages("tenant-a", TaskStatus.CANCELLED, "report.build", 2));
    assertEquals(List.of(), allPages("tenant-b", null, null, 2), "another tenant sees nothing");
    List<Long> reports = allPages("tenant-a", null, "report.build", 4);
    assertEquals(7, reports.size(), "six processor tasks and the sharded parent, not its shards");
    assertEquals(sharded.taskId(), reports.get(0));
    assertTrue(reports.stream().noneMatch(id -> id > sharded.taskId()));
  }
}
