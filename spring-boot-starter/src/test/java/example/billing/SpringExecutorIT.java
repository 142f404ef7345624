package example.billing;

import ax.spring.AxExecutorLifecycle;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter end to end: {@link BillingApplication}, configured by billing.yml, as a @SpringBootTest
 * against a real scheduler node ({@code target/ax.jar server}, its own process, on a fresh PostgreSQL
 * database), with a token minted by {@code ax.jar executor-token}. Tasks go in through the signed API and
 * are read back through it. The last test stops the application and checks the drain.
 */
@SpringBootTest(classes = BillingApplication.class, properties = "spring.config.name=billing")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@DirtiesContext
class SpringExecutorIT {
  private static final String EXECUTOR_ID = "billing-spring-1";
  private static final long WAIT_MS = 30_000;

  private static TestDatabase database;
  private static AxNode node;

  @Autowired
  ConfigurableApplicationContext context;
  @Autowired
  AxExecutorLifecycle lifecycle;
  @Autowired
  Reports reports;
  @Autowired
  StartedTasks startedTasks;

  /** Starts the node before the application, so the application's executor has somewhere to register. */
  @DynamicPropertySource
  static void scheduler(DynamicPropertyRegistry registry) throws Exception {
    database = TestDatabase.create();
    node = AxNode.start(database.url());
    String token = AxNode.token(EXECUTOR_ID);
    registry.add("ax.executor.servers", node::bridge);
    registry.add("ax.executor.token", () -> token);
  }

  @AfterAll
  static void stopNode() throws Exception {
    try {
      if (node != null) {
        node.close();
      }
    } finally {
      if (database != null) {
        database.close();
      }
    }
  }

  private static String submit(String processor, JsonObject payload, int maxRetry) throws Exception {
    SignedApi.Reply r = node.api().post("/openapi/v1/tasks", new JsonObject().put("task_type", "billing")
        .put("processor", processor).put("payload", payload).put("max_retry", maxRetry).encode());
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    return r.body().getString("task_id");
  }

  private static JsonObject task(String id) throws Exception {
    SignedApi.Reply r = node.api().get("/openapi/v1/tasks/" + id);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    return r.body();
  }

  /** Polls the task through the API until it has {@code status}; fails with the task and the node's log. */
  private static JsonObject await(String id, String status) throws Exception {
    long deadline = System.currentTimeMillis() + WAIT_MS;
    JsonObject t = task(id);
    while (!status.equals(t.getString("status")) && System.currentTimeMillis() < deadline) {
      Thread.sleep(100);
      t = task(id);
    }
    assertThat(t.getString("status")).as("task %s: %s\nnode log:\n%s", id, t.encode(), node.output())
        .isEqualTo(status);
    return t;
  }

  /** The executors the leader knows, from {@code GET /health?detail=true}. */
  private static JsonArray executors() throws Exception {
    JsonArray executors = node.api().getPublic("/health?detail=true").body().getJsonArray("executors");
    return executors == null ? new JsonArray() : executors;
  }

  private static JsonObject awaitExecutor(String state) throws Exception {
    long deadline = System.currentTimeMillis() + WAIT_MS;
    while (System.currentTimeMillis() < deadline) {
      for (Object o : executors()) {
        JsonObject e = (JsonObject) o;
        if (EXECUTOR_ID.equals(e.getString("executor_id")) && state.equals(e.getString("state"))) {
          return e;
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError("executor " + EXECUTOR_ID + " not " + state + " within " + WAIT_MS + " ms: " + executors()
        + "\nnode log:\n" + node.output());
  }

  @Test
  @Order(1)
  void theApplicationsProcessorsRegisterAsBillingYmlConfiguresThem() throws Exception {
    JsonObject executor = awaitExecutor("LIVE");
    assertThat(executor.getJsonArray("processors").getList())
        .containsExactly("archive.slow", "greet", "invoice.total", "report.flaky", "report.render");
    assertThat(executor.getString("zone")).isEqualTo("eu-test");
    assertThat(executor.getInteger("threads")).isEqualTo(2 + 4 + 2);
    assertThat(executor.getInteger("buffer")).isEqualTo(16);

    HealthIndicator health = context.getBean("axExecutorHealthIndicator", HealthIndicator.class);
    assertThat(health.health().getStatus()).isEqualTo(Status.UP);
    assertThat(health.health().getDetails()).containsEntry("executorId", EXECUTOR_ID)
        .containsEntry("server", node.bridge());
  }

  @Test
  @Order(2)
  void whatAProcessorReturnsIsTheTasksResult() throws Exception {
    String total = submit("invoice.total", new JsonObject().put("invoice", "INV-9").put("lines", new JsonArray()
        .add(new JsonObject().put("price", "9.90").put("qty", 2))
        .add(new JsonObject().put("price", "0.05").put("qty", 3))), 2);
    String render = submit("report.render", new JsonObject().put("name", "monthly"), 2);
    String greet = submit("greet", new JsonObject().put("name", "Ada"), 2);

    assertThat(await(total, "SUCCESS").getJsonObject("result").getMap())
        .containsEntry("invoice", "INV-9").containsEntry("currency", "EUR").containsEntry("total", "19.95");
    assertThat(await(render, "SUCCESS").getJsonObject("result").getMap())
        .containsEntry("report", "monthly").containsEntry("task_id", render).containsEntry("executor_id", EXECUTOR_ID);
    assertThat(await(greet, "SUCCESS").getValue("result")).isEqualTo("hello Ada");
    assertThat(startedTasks.started).contains("invoice.total " + total + " 1", "report.render " + render + " 1",
        "greet " + greet + " 1");
  }

  @Test
  @Order(3)
  void aProcessorThatThrowsEndsFailedAfterItsRetries() throws Exception {
    String id = submit("report.flaky", new JsonObject(), 2);

    JsonObject failed = await(id, "FAILED");
    assertThat(failed.getInteger("attempt")).isEqualTo(3);
    assertThat(failed.getString("error")).isEqualTo("report service unavailable (call 3, attempt 3)");
    assertThat(reports.flakyCalls.get(id)).hasValue(3);
    assertThat(startedTasks.started).containsSubsequence("report.flaky " + id + " 1", "report.flaky " + id + " 2",
        "report.flaky " + id + " 3");
  }

  @Test
  @Order(4)
  void stoppingTheApplicationDrainsTheTaskItIsRunning() throws Exception {
    String id = submit("archive.slow", new JsonObject().put("invoice", "INV-9").put("ms", 1500), 0);
    assertThat(reports.awaitArchiveStarted(id, WAIT_MS)).as("archive.slow started").isTrue();

    // SIGTERM makes Spring Boot close() the context, whose first step is this lifecycle stop, phase by
    // phase (the drain is ours). stop() runs exactly that step and leaves the context open, which the test
    // framework needs after the test; @DirtiesContext closes it after the class.
    context.stop();

    assertThat(lifecycle.isRunning()).isFalse();
    assertThat(reports.archiveFinished).containsEntry(id, true);
    // Reported before stop() returned: the task is already SUCCESS, no waiting
    JsonObject archived = task(id);
    assertThat(archived.getString("status")).as(archived.encode()).isEqualTo("SUCCESS");
    assertThat(archived.getJsonObject("result").getString("archived")).isEqualTo("INV-9");
    // and the executor said `done`, so the leader forgot it rather than waiting for it to time out
    Set<String> ids = new java.util.HashSet<>();
    for (Object o : executors()) {
      ids.add(((JsonObject) o).getString("executor_id"));
    }
    assertThat(ids).doesNotContain(EXECUTOR_ID);
    assertThat(List.copyOf(startedTasks.started)).contains("archive.slow " + id + " 1");
  }
}
