package ax.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ax.client.api.SchedulesApi;
import ax.client.api.TasksApi;
import ax.client.invoker.ApiException;
import ax.client.invoker.ApiResponse;
import ax.client.model.Attempt;
import ax.client.model.CancelResult;
import ax.client.model.NotificationList;
import ax.client.model.Problem;
import ax.client.model.ProblemCode;
import ax.client.model.Schedule;
import ax.client.model.ScheduleCreated;
import ax.client.model.ScheduleRequest;
import ax.client.model.ScheduleStatus;
import ax.client.model.Task;
import ax.client.model.TaskBatchItemResult;
import ax.client.model.TaskBatchRequest;
import ax.client.model.TaskCreated;
import ax.client.model.TaskList;
import ax.client.model.TaskRequest;
import ax.client.model.TaskStatus;
import ax.client.model.TaskTemplate;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The generated Java client, as AxClient builds it, against a node from the jar: every call a caller
 * makes, with nothing but the generated models and methods, and a refusal read as a typed Problem.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JavaClientIT {
  private LiveNode node;
  private TasksApi tasks;

  @BeforeAll
  void start() throws Exception {
    node = LiveNode.start();
    tasks = AxClient.builder().baseUrl(node.baseUrl()).accessKey(LiveNode.ACCESS_KEY).secret(LiveNode.SECRET).build();
  }

  @AfterAll
  void stop() throws Exception {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void aTaskIsCreatedRunAndReadBackWithItsAttempts() throws Exception {
    ApiResponse<TaskCreated> created = tasks.createTaskWithHttpInfo(new TaskRequest().taskType("client.java")
        .callbackUrl(URI.create(node.callbackUrl())).payload(Map.of("user", 42)).bizKey("java-1"));
    assertEquals(201, created.getStatusCode());
    String id = created.getData().getTaskId();
    assertNull(created.getData().getDuplicate());

    ApiResponse<TaskCreated> again = tasks.createTaskWithHttpInfo(new TaskRequest().taskType("client.java")
        .callbackUrl(URI.create(node.callbackUrl())).bizKey("java-1"));
    assertEquals(200, again.getStatusCode());
    assertEquals(Boolean.TRUE, again.getData().getDuplicate(), "duplicate is a boolean, not 'any'");
    assertEquals(id, again.getData().getTaskId());

    Task done = awaitStatus(id, TaskStatus.SUCCESS);
    assertEquals("client.java", done.getTaskType());
    assertEquals(Map.of("handled", true), done.getResult());
    assertEquals(Integer.valueOf(1), done.getAttempt());

    List<Attempt> attempts = tasks.listTaskAttempts(id).getItems();
    assertEquals(1, attempts.size());
    assertEquals(Attempt.OutcomeEnum.SUCCESS, attempts.get(0).getOutcome());
    assertNotNull(attempts.get(0).getStartedAt());
    assertTrue(!attempts.get(0).getFinishedAt().isBefore(attempts.get(0).getStartedAt()));

    TaskList page = tasks.listTasks(TaskStatus.SUCCESS, "client.java", 10, null, null, null);
    assertTrue(page.getItems().stream().anyMatch(t -> t.getTaskId().equals(id)), "listed: " + page);
  }

  @Test
  void aChildNamedInDependsOnWaitsAndAWebhookIsListedThroughTheGeneratedModels() throws Exception {
    TaskCreated parent = tasks.createTask(new TaskRequest().taskType("client.java.parent").processor("nobody")
        .delayMs(3_600_000L));
    TaskCreated child = tasks.createTask(new TaskRequest().taskType("client.java.child")
        .callbackUrl(URI.create(node.callbackUrl())).notifyUrl(URI.create(node.callbackUrl()))
        .dependsOn(java.util.Set.of(parent.getTaskId())));
    assertEquals(TaskStatus.CREATED, child.getStatus(), "waits for its parent");
    Task stored = tasks.getTask(child.getTaskId());
    assertEquals(List.of(parent.getTaskId()), stored.getDependsOn());
    assertEquals(node.callbackUrl(), stored.getNotifyUrl());

    tasks.cancelTask(parent.getTaskId());
    Task skipped = awaitStatus(child.getTaskId(), TaskStatus.SKIPPED);
    assertEquals("dependency " + parent.getTaskId() + " ended CANCELLED", skipped.getError());
    NotificationList hooks = tasks.listTaskNotifications(child.getTaskId());
    assertNotNull(hooks.getItems());
  }

  @Test
  void aTaskDueInAMonthIsCancelledOnceThenNotCancellable() throws Exception {
    long aMonth = 30L * 24 * 3600 * 1000; // past 2^31 ms: delay_ms is an int64 (a Long here)
    TaskCreated created = tasks.createTask(new TaskRequest().taskType("client.java.cancel").processor("nobody")
        .delayMs(aMonth));
    assertEquals(TaskStatus.DELAYED, created.getStatus());

    CancelResult cancelled = tasks.cancelTask(created.getTaskId());
    assertEquals(TaskStatus.CANCELLED, cancelled.getStatus());

    ApiException refused = assertThrows(ApiException.class, () -> tasks.cancelTask(created.getTaskId()));
    Problem problem = Problems.of(refused).orElseThrow(() -> refused);
    assertEquals(409, refused.getCode());
    assertEquals(ProblemCode.NOT_CANCELLABLE, problem.getCode());
    assertEquals(TaskStatus.CANCELLED, problem.getCurrentStatus());
  }

  @Test
  void aBatchAnswersEachElementTyped() throws Exception {
    List<TaskBatchItemResult> results = tasks.createTaskBatch(new TaskBatchRequest()
        .addTasksItem(new TaskRequest().taskType("client.java.batch").processor("nobody").delayMs(3_600_000L))
        .addTasksItem(new TaskRequest().taskType("client.java.batch").processor("nobody").priority(12)))
        .getResults();
    assertEquals(2, results.size());
    assertEquals(201, results.get(0).getStatusCode());
    assertNotNull(results.get(0).getTaskId());
    assertEquals(400, results.get(1).getStatusCode());
    assertEquals(ProblemCode.VALIDATION_FAILED, results.get(1).getError().getCode());
  }

  @Test
  void aScheduleIsCreatedReadPausedTriggeredAndDeletedTyped() throws Exception {
    SchedulesApi schedules = AxClient.builder().baseUrl(node.baseUrl()).accessKey(LiveNode.ACCESS_KEY)
        .secret(LiveNode.SECRET).buildSchedules();
    ScheduleRequest daily = new ScheduleRequest().name("client-java-daily").cron("0 2 * * *")
        .timeZone("Asia/Shanghai").maxRuns(3_000_000_000L)
        .task(new TaskTemplate().taskType("client.java.report").processor("report"));
    ScheduleCreated created = schedules.createSchedule(daily);
    assertEquals(ScheduleStatus.ACTIVE, created.getStatus());
    assertEquals(5, created.getNextFireTimes().size());
    assertEquals(18, created.getNextFireTimes().get(0).withOffsetSameInstant(java.time.ZoneOffset.UTC).getHour(),
        "02:00 in Shanghai is 18:00 UTC");

    Schedule read = schedules.getSchedule(created.getScheduleId());
    assertEquals(Long.valueOf(3_000_000_000L), read.getMaxRuns(), "an int64 beyond 2^31 survives both ways");
    assertNull(read.getEveryMs());
    assertEquals("report", read.getTask().get("processor"));
    assertEquals(ScheduleStatus.PAUSED, schedules.pauseSchedule(created.getScheduleId()).getStatus());
    assertEquals(1, schedules.listSchedules(ScheduleStatus.PAUSED, 10, null).getItems().size());
    assertNotNull(schedules.triggerSchedule(created.getScheduleId()).getTaskId());
    assertEquals(ScheduleStatus.ENDED, schedules.deleteSchedule(created.getScheduleId()).getStatus());

    ApiException taken = assertThrows(ApiException.class, () -> schedules.createSchedule(daily.name("x")
        .everyMs(1_000L)));
    assertEquals(ProblemCode.VALIDATION_FAILED, Problems.of(taken).orElseThrow().getCode(), "cron and every_ms");
    ApiException ended = assertThrows(ApiException.class, () -> schedules.pauseSchedule(created.getScheduleId()));
    assertEquals(409, ended.getCode());
    assertEquals(ProblemCode.SCHEDULE_STATE_CONFLICT, Problems.of(ended).orElseThrow().getCode());
  }

  @Test
  void aRefusalIsATypedProblem() throws Exception {
    ApiException e = assertThrows(ApiException.class, () -> tasks.createTask(new TaskRequest()
        .taskType("client.java.bad").processor("nobody").priority(12)));
    Problem p = Problems.of(e).orElseThrow(() -> e);
    assertEquals(400, e.getCode());
    assertEquals(ProblemCode.VALIDATION_FAILED, p.getCode());
    assertEquals(Integer.valueOf(400), p.getStatus());
    assertTrue(p.getDetail().contains("priority"), p.getDetail());

    ApiException missing = assertThrows(ApiException.class, () -> tasks.getTask("9999999999999999999"));
    assertEquals(ProblemCode.NOT_FOUND, Problems.of(missing).orElseThrow().getCode());
  }

  @Test
  void aWrongSecretIsRefusedAsUnsigned() throws Exception {
    TasksApi forged = AxClient.builder().baseUrl(node.baseUrl()).accessKey(LiveNode.ACCESS_KEY)
        .secret("not-the-secret-0123456789abcdef").build();
    ApiException e = assertThrows(ApiException.class, () -> forged.listTasks(null, null, 1, null, null, null));
    assertEquals(401, e.getCode());
    assertEquals(ProblemCode.SIGNATURE_MISMATCH, Problems.of(e).orElseThrow().getCode());
  }

  private Task awaitStatus(String id, TaskStatus status) throws Exception {
    long deadline = System.currentTimeMillis() + 30_000;
    Task last = null;
    while (System.currentTimeMillis() < deadline) {
      last = tasks.getTask(id);
      if (last.getStatus() == status) {
        return last;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("task " + id + " did not reach " + status + "; last seen " + last + "\n" + node.output());
  }
}
