package ax.e2e;

import ax.testing.ContractValidator;
import ax.testing.TestPostgres;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * openapi.yaml judged against the real thing: every operation is called on a node started from the jar
 * (real PostgreSQL, an executor process for processor tasks, a local HTTP target), and every answer,
 * success or declared error, must match the contract ({@link ContractValidator}); a mismatch fails
 * with the validator's words. The assertions beside it pin what the schemas cannot say (order,
 * cursors, which status for which mistake).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ContractResponsesIT {
  private static final String TASKS = "/openapi/v1/tasks";
  private static final String MILLIS = "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z";

  private TestPostgres pg;
  private AxCluster ax;
  private ExecutorProcess executor;
  private Receiver receiver;
  private ContractValidator contract;
  private ApiClient api;
  private ApiClient otherTenant;

  @BeforeAll
  void start() throws Exception {
    contract = ContractValidator.load("openapi.yaml");
    pg = TestPostgres.create();
    receiver = new Receiver();
    ax = AxCluster.start(pg, 1, Map.of());
    executor = ExecutorProcess.java("contract-exec", AxCluster.token("contract-exec"), ax.servers(), "echo,fail");
    api = ax.api(0);
    try (Connection c = pg.connect()) {
      c.createStatement().execute("INSERT INTO api_keys (access_key, secret, tenant_id) VALUES "
          + "('other-key', 'other-secret-0123456789abcdef', 'tenant-b')");
      c.createStatement().execute("INSERT INTO api_keys (access_key, secret, tenant_id, rate_limit) VALUES "
          + "('slow-key', 'slow-secret-0123456789abcdef', 'tenant-c', '1/1')");
    }
    otherTenant = new ApiClient(ax.nodes.get(0).port, "other-key", "other-secret-0123456789abcdef");
  }

  @AfterAll
  void stop() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {executor, ax, receiver, pg, contract}) {
      if (c != null) {
        c.close();
      }
    }
  }

  // ---- administration

  @Test
  void theAdminApiIsOffWithoutItsSecret() throws Exception {
    java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + ax.nodes.get(0).port
            + "/admin/v1/keys")).header("Authorization", "Bearer x.y.z").build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(404, r.statusCode(), r.body());
    assertEquals("not_found", new JsonObject(r.body()).getString("code"));
  }

  // ---- createTask

  @Test
  void createTaskAnswers201ThenA200DuplicateForTheSameBizKey() throws Exception {
    JsonObject t = httpTask("contract.create", 600_000).put("biz_key", "order-1");
    ApiClient.Reply created = judged("createTask", api.submit(t));
    assertEquals(201, created.status());
    assertFalse(created.body().containsKey("duplicate"));
    ApiClient.Reply again = judged("createTask", api.submit(t));
    assertEquals(200, again.status());
    assertEquals(true, again.body().getBoolean("duplicate"));
    assertEquals("biz_key", again.body().getString("duplicate_reason"));
    assertEquals(created.body().getString("task_id"), again.body().getString("task_id"));
  }

  @Test
  void aSamePayloadWithinFiveSecondsIsA200FingerprintDuplicate() throws Exception {
    JsonObject t = httpTask("contract.fingerprint", 600_000).put("dedupe", true);
    ApiClient.Reply created = judged("createTask", api.submit(t));
    assertEquals(201, created.status());
    ApiClient.Reply again = judged("createTask", api.submit(t.copy().put("payload", new JsonObject("{\"user\":42.0}"))));
    assertEquals(200, again.status(), again.raw().body());
    assertEquals("fingerprint", again.body().getString("duplicate_reason"));
    assertEquals(created.body().getString("task_id"), again.body().getString("task_id"));
    JsonObject read = judged("getTask", api.get("/openapi/v1/tasks/" + created.body().getString("task_id"))).body();
    assertEquals(true, read.getBoolean("dedupe"));
  }

  @Test
  void createTaskErrorsAreProblemsWithTheirDeclaredStatusAndCode() throws Exception {
    assertProblem(400, "validation_failed", judged("createTask", api.post(TASKS, "{\"processor\":\"echo\"}")));
    assertProblem(400, "validation_failed", judged("createTask", api.post(TASKS, "{not json")));
    assertProblem(400, "validation_failed", judged("createTask",
        api.submit(httpTask("contract.create", 0).put("priority", 12))));
    assertProblem(400, "callback_url_not_allowed", judged("createTask", api.submit(new JsonObject()
        .put("task_type", "contract.create").put("callback_url", "http://169.254.169.254/latest/meta-data"))));
    assertProblem(413, "payload_too_large", judged("createTask",
        api.submit(httpTask("contract.create", 0).put("payload", "x".repeat(70 * 1024)))));
    assertProblem(415, "unsupported_media_type", judged("createTask",
        api.postAs(TASKS, httpTask("contract.create", 0).encode(), "text/plain")));
    assertProblem(401, "signature_mismatch", judged("createTask", api.send("POST", TASKS, null,
        httpTask("contract.create", 0).encode(), System.currentTimeMillis(), ApiClient.newNonce(), "00".repeat(32))));
    assertProblem(401, "unknown_key", judged("createTask",
        new ApiClient(ax.nodes.get(0).port, "nobody", "whatever-secret-123456").submit(httpTask("contract.create", 0))));
  }

  @Test
  void aMissingSigningHeaderIs401WithTheCodeTheContractNames() throws Exception {
    Map<String, String> codes = Map.of("X-Ax-Key", "unknown_key", "X-Ax-Timestamp", "timestamp_skew",
        "X-Ax-Nonce", "signature_mismatch", "X-Ax-Signature", "signature_mismatch");
    HttpClient http = HttpClient.newHttpClient();
    for (Map.Entry<String, String> missing : codes.entrySet()) {
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ax.nodes.get(0).port + TASKS))
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(httpTask("contract.auth", 0).encode()));
      Map<String, String> signing = Map.of("X-Ax-Key", api.key, "X-Ax-Timestamp",
          Long.toString(System.currentTimeMillis()), "X-Ax-Nonce", ApiClient.newNonce(), "X-Ax-Signature", "00".repeat(32));
      signing.forEach((name, value) -> {
        if (!name.equals(missing.getKey())) {
          b.header(name, value);
        }
      });
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      contract.assertConforms("createTask", r.statusCode(), headers(r), r.body());
      assertEquals(401, r.statusCode(), missing.getKey() + ": " + r.body());
      assertEquals(missing.getValue(), new JsonObject(r.body()).getString("code"), missing.getKey());
    }
  }

  @Test
  void aKeyOverItsRateLimitGetsA429ProblemWithRetryAfter() throws Exception {
    ApiClient slow = new ApiClient(ax.nodes.get(0).port, "slow-key", "slow-secret-0123456789abcdef");
    ApiClient.Reply limited = null;
    for (int i = 0; i < 5 && limited == null; i++) {
      ApiClient.Reply r = judged("listTasks", slow.get(TASKS + "?limit=1"));
      limited = r.status() == 429 ? r : null;
    }
    assertNotNull(limited, "burst 1 at 1/s: one of 5 immediate calls is refused");
    assertProblem(429, "rate_limited", limited);
    assertTrue(limited.raw().headers().firstValue("Retry-After").isPresent());
  }

  // ---- getTask

  @Test
  void getTaskShowsEveryMemberOfTaskBeforeAndAfterItRuns() throws Exception {
    String waiting = created(api.submit(httpTask("contract.get", 600_000).put("biz_key", "get-1")));
    JsonObject w = judged("getTask", api.get(TASKS + "/" + waiting)).body();
    assertEquals("DELAYED", w.getString("status"));
    assertEquals(1, w.getInteger("shard_total"));
    assertEquals("get-1", w.getString("biz_key"));
    for (String member : List.of("processor", "notify_url", "last_run_node", "started_at", "finished_at", "result",
        "error")) {
      assertTrue(w.containsKey(member) && w.getValue(member) == null, member + " is present and null: " + w);
    }
    assertEquals(new JsonArray(), w.getJsonArray("depends_on"));

    String http = created(api.submit(httpTask("contract.get", 0)));
    JsonObject done = awaitStatus(http, "SUCCESS");
    assertEquals(Long.parseLong(http), done.getJsonObject("result").getLong("handled"));
    assertNotNull(done.getString("finished_at"));

    String processor = created(api.submit(processorTask("echo", 0)));
    assertEquals("SUCCESS", awaitStatus(processor, "SUCCESS").getString("status"));

    ApiClient.Reply sharded = judged("createTask", api.submit(processorTask("echo", 0).put("shard_total", 4)));
    JsonObject parent = awaitStatus(sharded.body().getString("task_id"), "SUCCESS");
    assertEquals(4, parent.getInteger("shard_total"));
    assertEquals(4, parent.getJsonArray("result").size());
  }

  @Test
  void aMalformedTaskIdIs400AndAWellFormedIdOfNoTaskOfTheCallerIs404() throws Exception {
    String mine = created(api.submit(httpTask("contract.ids", 600_000)));
    for (String bad : List.of("abc", "-5", "12ab", "1".repeat(30), "%20")) {
      assertProblem(400, "validation_failed", judged("getTask", api.get(TASKS + "/" + bad)));
      assertProblem(400, "validation_failed", judged("cancelTask", api.post(TASKS + "/" + bad + "/cancel", "")));
      assertProblem(400, "validation_failed", judged("listTaskAttempts", api.get(TASKS + "/" + bad + "/attempts")));
    }
    for (String none : List.of("1", "0", "9999999999999999999")) {
      assertProblem(404, "not_found", judged("getTask", api.get(TASKS + "/" + none)));
      assertProblem(404, "not_found", judged("cancelTask", api.post(TASKS + "/" + none + "/cancel", "")));
      assertProblem(404, "not_found", judged("listTaskAttempts", api.get(TASKS + "/" + none + "/attempts")));
    }
    assertProblem(404, "not_found", judged("getTask", otherTenant.get(TASKS + "/" + mine)));
    assertProblem(404, "not_found", judged("cancelTask", otherTenant.post(TASKS + "/" + mine + "/cancel", "")));
    assertProblem(404, "not_found", judged("listTaskAttempts", otherTenant.get(TASKS + "/" + mine + "/attempts")));
    assertEquals("DELAYED", api.get(TASKS + "/" + mine).body().getString("status"), "untouched by the other tenant");
  }

  // ---- cancelTask

  @Test
  void cancelAnswers200OnceThen409WithTheCurrentStatus() throws Exception {
    String id = created(api.submit(httpTask("contract.cancel", 600_000)));
    ApiClient.Reply cancelled = judged("cancelTask", api.post(TASKS + "/" + id + "/cancel", ""));
    assertEquals(200, cancelled.status());
    assertEquals("CANCELLED", cancelled.body().getString("status"));
    ApiClient.Reply again = judged("cancelTask", api.post(TASKS + "/" + id + "/cancel", ""));
    assertProblem(409, "not_cancellable", again);
    assertEquals("CANCELLED", again.body().getString("current_status"));
  }

  // ---- listTasks

  @Test
  void listTasksPagesNewestFirstWithOpaqueCursorsUntilANullCursor() throws Exception {
    String type = "contract.list";
    List<String> submitted = new ArrayList<>();
    submitted.add(created(api.submit(httpTask(type, 600_000))));
    // One batch: its tasks share created_at, so task_id orders them.
    JsonArray batch = new JsonArray();
    for (int i = 0; i < 5; i++) {
      batch.add(httpTask(type, 600_000));
    }
    for (Object r : api.post(TASKS + "/batch", new JsonObject().put("tasks", batch).encode()).body()
        .getJsonArray("results")) {
      submitted.add(((JsonObject) r).getString("task_id"));
    }
    submitted.add(created(api.submit(httpTask(type, 600_000))));

    List<JsonObject> seen = new ArrayList<>();
    Set<String> cursors = new HashSet<>();
    String cursor = null;
    int pages = 0;
    do {
      ApiClient.Reply page = judged("listTasks", api.get(TASKS + "?task_type=" + type + "&limit=3"
          + (cursor == null ? "" : "&cursor=" + cursor)));
      assertEquals(200, page.status(), page.raw().body());
      page.body().getJsonArray("items").forEach(o -> seen.add((JsonObject) o));
      cursor = page.body().getString("next_cursor");
      if (cursor != null) {
        assertTrue(cursors.add(cursor), "every page has its own cursor");
        assertFalse(submitted.contains(cursor), "a cursor is not a task id");
        assertEquals(3, page.body().getJsonArray("items").size(), "only the last page is short");
      }
      pages++;
    } while (cursor != null && pages < 10);
    assertEquals(3, pages, "7 tasks at 3 per page, and no empty page after the last");

    List<String> ids = seen.stream().map(t -> t.getString("task_id")).toList();
    assertEquals(new HashSet<>(submitted), new HashSet<>(ids), "every task exactly once");
    assertEquals(submitted.size(), ids.size());
    for (int i = 1; i < seen.size(); i++) {
      JsonObject newer = seen.get(i - 1);
      JsonObject older = seen.get(i);
      int byTime = Instant.parse(newer.getString("created_at")).compareTo(Instant.parse(older.getString("created_at")));
      assertTrue(byTime > 0 || byTime == 0 && Long.parseLong(newer.getString("task_id"))
          > Long.parseLong(older.getString("task_id")), "newest first, then by task_id: " + newer + " / " + older);
    }
    assertEquals(submitted.get(submitted.size() - 1), ids.get(0), "the last one submitted comes first");
    assertEquals(submitted.get(0), ids.get(ids.size() - 1), "the first one submitted comes last");
  }

  @Test
  void listFiltersHoldAcrossPages() throws Exception {
    String type = "contract.filter";
    List<String> cancelled = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String id = created(api.submit(httpTask(type, 600_000)));
      if (i % 2 == 0) {
        assertEquals(200, api.post(TASKS + "/" + id + "/cancel", "").status());
        cancelled.add(0, id);
      }
    }
    List<String> seen = new ArrayList<>();
    String cursor = null;
    do {
      ApiClient.Reply page = judged("listTasks", api.get(TASKS + "?status=CANCELLED&task_type=" + type + "&limit=2"
          + (cursor == null ? "" : "&cursor=" + cursor)));
      for (Object o : page.body().getJsonArray("items")) {
        JsonObject t = (JsonObject) o;
        assertEquals("CANCELLED", t.getString("status"));
        assertEquals(type, t.getString("task_type"));
        seen.add(t.getString("task_id"));
      }
      cursor = page.body().getString("next_cursor");
    } while (cursor != null && seen.size() < 10);
    assertEquals(cancelled, seen, "only the cancelled ones, newest first");
    assertTrue(judged("listTasks", otherTenant.get(TASKS + "?task_type=" + type)).body().getJsonArray("items")
        .isEmpty(), "another tenant sees none of them");
  }

  @Test
  void aCursorTheServerDidNotIssueOrABadQueryIs400() throws Exception {
    String id = created(api.submit(httpTask("contract.cursor", 600_000)));
    for (String query : List.of("cursor=" + id, "cursor=garbage!", "cursor=AAAA", "cursor=" + "A".repeat(200),
        "limit=0", "limit=501", "limit=ten", "status=WAITING", "task_type=has%20space")) {
      assertProblem(400, "validation_failed", judged("listTasks", api.get(TASKS + "?" + query)));
    }
  }

  // ---- createTaskBatch

  @Test
  void batchAnswersEachItemOnItsOwnInOrder() throws Exception {
    JsonArray items = new JsonArray()
        .add(httpTask("contract.batch", 600_000))
        .add(httpTask("contract.batch", 600_000).put("biz_key", "batch-1"))
        .add(httpTask("contract.batch", 600_000).put("biz_key", "batch-1"))
        .add(httpTask("contract.batch", 600_000).put("priority", 42))
        .add("not an object")
        .add(httpTask("contract.batch", 600_000).put("colour", "red"))
        .add(new JsonObject().put("task_type", "contract.batch").put("callback_url", "http://10.0.0.1/x"))
        .add(httpTask("contract.batch", 600_000).put("payload", "x".repeat(70 * 1024)));
    ApiClient.Reply r = judged("createTaskBatch", api.post(TASKS + "/batch",
        new JsonObject().put("tasks", items).encode()));
    assertEquals(200, r.status(), r.raw().body());
    JsonArray results = r.body().getJsonArray("results");
    int[] expected = {201, 201, 200, 400, 400, 400, 400, 413};
    assertEquals(expected.length, results.size());
    for (int i = 0; i < expected.length; i++) {
      JsonObject item = results.getJsonObject(i);
      assertEquals(i, item.getInteger("index"));
      assertEquals(expected[i], item.getInteger("status_code"), item.encode());
      if (expected[i] >= 400) {
        assertEquals(expected[i], item.getJsonObject("error").getInteger("status"), "error.status = status_code");
        assertEquals("urn:ax:problem:" + item.getJsonObject("error").getString("code"),
            item.getJsonObject("error").getString("type"));
      }
    }
    assertEquals(true, results.getJsonObject(2).getBoolean("duplicate"));
    assertEquals("callback_url_not_allowed", results.getJsonObject(6).getJsonObject("error").getString("code"));
    assertEquals(results.getJsonObject(1).getString("task_id"), results.getJsonObject(2).getString("task_id"));
  }

  @Test
  void aBodyThatIsNotAListOfOneToAThousandTasksIsRefusedWhole() throws Exception {
    StringBuilder tooMany = new StringBuilder("{\"tasks\":[");
    for (int i = 0; i < 1001; i++) {
      tooMany.append(i == 0 ? "" : ",").append(processorTask("echo", 600_000).encode());
    }
    String one = httpTask("contract.whole", 600_000).encode();
    for (String body : List.of("{\"tasks\":{\"a\":1}}", "{}", "{\"tasks\":[]}", "{\"tasks\":null}",
        "{\"tasks\":\"x\"}", "[" + one + "]", "\"tasks\"", "{not json", "{\"tasks\":[" + one + "],\"colour\":1}",
        tooMany.append("]}").toString())) {
      ApiClient.Reply r = judged("createTaskBatch", api.post(TASKS + "/batch", body));
      assertProblem(400, "validation_failed", r);
    }
    assertTrue(api.get(TASKS + "?task_type=contract.whole").body().getJsonArray("items").isEmpty(),
        "nothing of a refused batch is stored");
  }

  // ---- listTaskNotifications

  @Test
  void notificationsListTheWebhooksStateAndEveryTryWithEveryMember() throws Exception {
    String none = created(api.submit(httpTask("contract.nohook", 600_000)));
    JsonObject empty = judged("listTaskNotifications", api.get(TASKS + "/" + none + "/notifications")).body();
    assertNull(empty.getValue("state"));
    assertNull(empty.getValue("notify_url"));
    assertTrue(empty.getJsonArray("items").isEmpty());

    // The receiver answers 500 to *.fail types and 200 otherwise: the webhook goes to the latter.
    String hooked = created(api.submit(httpTask("contract.fail", 0).put("max_retry", 0)
        .put("notify_url", receiver.url())));
    awaitStatus(hooked, "FAILED");
    long deadline = System.currentTimeMillis() + 10_000;
    JsonObject n = api.get(TASKS + "/" + hooked + "/notifications").body();
    while (!"DELIVERED".equals(n.getString("state")) && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
      n = api.get(TASKS + "/" + hooked + "/notifications").body();
    }
    ApiClient.Reply delivered = judged("listTaskNotifications", api.get(TASKS + "/" + hooked + "/notifications"));
    assertEquals("DELIVERED", delivered.body().getString("state"), delivered.raw().body());
    JsonObject first = delivered.body().getJsonArray("items").getJsonObject(0);
    assertEquals(200, first.getInteger("http_status"));
    assertTrue(first.getString("finished_at").matches(MILLIS));
    assertProblem(404, "not_found", judged("listTaskNotifications", api.get(TASKS + "/1/notifications")));
    assertProblem(400, "validation_failed", judged("listTaskNotifications", api.get(TASKS + "/x1/notifications")));
  }

  // ---- listTaskAttempts

  @Test
  void attemptsListEveryFinishedAttemptWithEveryMember() throws Exception {
    String fresh = created(api.submit(httpTask("contract.attempts", 600_000)));
    ApiClient.Reply none = judged("listTaskAttempts", api.get(TASKS + "/" + fresh + "/attempts"));
    assertEquals(200, none.status());
    assertTrue(none.body().getJsonArray("items").isEmpty());

    String failing = created(api.submit(httpTask("contract.fail", 0).put("max_retry", 1)));
    awaitStatus(failing, "FAILED");
    JsonArray http = judged("listTaskAttempts", api.get(TASKS + "/" + failing + "/attempts")).body()
        .getJsonArray("items");
    assertEquals(2, http.size());
    assertEquals(1, http.getJsonObject(0).getInteger("attempt"));
    assertEquals("FAILED", http.getJsonObject(0).getString("outcome"));
    assertNull(http.getJsonObject(0).getString("executor_id"), "an HTTP target has no executor");
    assertTrue(http.getJsonObject(0).containsKey("executor_id"));

    String onExecutor = created(api.submit(processorTask("echo", 0)));
    awaitStatus(onExecutor, "SUCCESS");
    JsonObject ran = judged("listTaskAttempts", api.get(TASKS + "/" + onExecutor + "/attempts")).body()
        .getJsonArray("items").getJsonObject(0);
    assertEquals("contract-exec", ran.getString("executor_id"));
    assertEquals("SUCCESS", ran.getString("outcome"));
    assertNull(ran.getString("error"));

    // "Times are RFC 3339 in UTC with millisecond precision": format date-time alone would take microseconds
    for (JsonObject attempt : List.of(http.getJsonObject(0), http.getJsonObject(1), ran)) {
      for (String time : List.of("started_at", "finished_at")) {
        assertTrue(attempt.getString(time).matches(MILLIS), time + " " + attempt);
      }
    }
  }

  @Test
  void taskTimesHaveMillisecondPrecision() throws Exception {
    String id = created(api.submit(httpTask("contract.times", 0)));
    JsonObject done = awaitStatus(id, "SUCCESS");
    for (String time : List.of("trigger_time", "created_at", "updated_at", "started_at", "finished_at")) {
      assertTrue(done.getString(time).matches(MILLIS), time + " " + done);
    }
  }

  @Test
  void aNullDependsOnIsNoDependenciesAListWaitsForItsParentsAndAnUnknownParentIsRefused() throws Exception {
    String id = created(api.submit(httpTask("contract.deps", 600_000).putNull("depends_on")));
    assertEquals(new JsonArray(), api.get(TASKS + "/" + id).body().getJsonArray("depends_on"));
    ApiClient.Reply child = judged("createTask",
        api.submit(httpTask("contract.deps.child", 0).put("depends_on", new JsonArray().add(id))));
    assertEquals(201, child.status(), child.raw().body());
    assertEquals("CREATED", child.body().getString("status"), "waits for its parent");
    JsonObject stored = judged("getTask", api.get(TASKS + "/" + child.body().getString("task_id"))).body();
    assertEquals(new JsonArray().add(id), stored.getJsonArray("depends_on"));
    assertProblem(400, "validation_failed", judged("createTask",
        api.submit(httpTask("contract.deps", 600_000).put("depends_on", new JsonArray().add("1")))));
  }

  // ---- runTaskSync

  @Test
  void syncAnswersTheResultAndRefusesWhatItCannotRun() throws Exception {
    ApiClient.Reply ok = judged("runTaskSync", api.post(TASKS + "/sync",
        processorTask("echo", 0).put("payload", new JsonObject().put("q", "now")).encode()));
    assertEquals(200, ok.status(), ok.raw().body());
    assertEquals("SUCCESS", ok.body().getString("status"));
    assertEquals("now", ok.body().getJsonObject("result").getJsonObject("payload").getString("q"));

    ApiClient.Reply failed = judged("runTaskSync", api.post(TASKS + "/sync",
        processorTask("fail", 0).put("max_retry", 0).encode()));
    assertEquals(200, failed.status(), failed.raw().body());
    assertEquals("FAILED", failed.body().getString("status"));
    assertNotNull(failed.body().getString("error"));

    assertProblem(400, "use_async_endpoint", judged("runTaskSync", api.post(TASKS + "/sync",
        processorTask("echo", 0).put("timeout_ms", 5_000).encode())));
    assertProblem(400, "validation_failed", judged("runTaskSync", api.post(TASKS + "/sync",
        httpTask("contract.sync", 0).encode())));
    assertProblem(400, "validation_failed", judged("runTaskSync", api.post(TASKS + "/sync",
        processorTask("echo", 0).put("delay_ms", 10).encode())));
    assertProblem(400, "validation_failed", judged("runTaskSync", api.post(TASKS + "/sync", "[]")));
  }

  // ---- health and metrics

  @Test
  void healthAndMetricsAnswerAsDeclared() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    Map<String, String> paths = Map.of("health", "/health", "healthLive", "/health/live", "healthReady",
        "/health/ready", "metrics", "/metrics");
    for (String op : paths.keySet()) {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
          + ax.nodes.get(0).port + paths.get(op))).build(), HttpResponse.BodyHandlers.ofString());
      contract.assertConforms(op, r.statusCode(), headers(r), r.body());
      assertEquals(200, r.statusCode());
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** The reply, once the contract has judged it (a mismatch fails here, with the validator's words). */
  @Test
  void everyScheduleOperationAnswersWhatTheContractDeclares() throws Exception {
    String schedules = "/openapi/v1/schedules";
    JsonObject definition = new JsonObject().put("name", "contract-daily").put("cron", "0 2 * * *")
        .put("time_zone", "Asia/Shanghai").put("task", new JsonObject().put("task_type", "contract.schedule")
            .put("callback_url", receiver.url()).put("payload", new JsonObject().put("user", 42)));
    ApiClient.Reply created = judged("createSchedule", api.post(schedules, definition.encode()));
    assertEquals(201, created.status(), created.raw().body());
    String id = created.body().getString("schedule_id");
    for (Object t : created.body().getJsonArray("next_fire_times")) {
      assertTrue(t.toString().matches(MILLIS), t.toString());
    }
    assertProblem(409, "schedule_name_taken", judged("createSchedule", api.post(schedules, definition.encode())));
    assertProblem(400, "validation_failed", judged("createSchedule", api.post(schedules,
        new JsonObject().put("every_ms", 1_000).put("task", new JsonObject().put("task_type", "x")).encode())));
    assertProblem(400, "callback_url_not_allowed", judged("createSchedule", api.post(schedules, new JsonObject()
        .put("every_ms", 60_000).put("task", new JsonObject().put("task_type", "x")
            .put("callback_url", "http://169.254.169.254/latest/meta-data")).encode())));

    ApiClient.Reply one = judged("getSchedule", api.get(schedules + "/" + id));
    assertEquals(200, one.status());
    assertEquals("Asia/Shanghai", one.body().getString("time_zone"));
    assertEquals(5, one.body().getJsonArray("next_fire_times").size());
    assertProblem(404, "not_found", judged("getSchedule", otherTenant.get(schedules + "/" + id)));
    assertProblem(400, "validation_failed", judged("getSchedule", api.get(schedules + "/12x")));
    ApiClient.Reply page = judged("listSchedules", api.get(schedules + "?status=ACTIVE&limit=1"));
    assertEquals(200, page.status());
    assertEquals(1, page.body().getJsonArray("items").size());
    assertProblem(400, "validation_failed", judged("listSchedules", api.get(schedules + "?status=SOMETIMES")));

    assertEquals(200, judged("pauseSchedule", api.post(schedules + "/" + id + "/pause", "")).status());
    assertProblem(409, "schedule_state_conflict", judged("pauseSchedule", api.post(schedules + "/" + id + "/pause", "")));
    assertEquals(200, judged("resumeSchedule", api.post(schedules + "/" + id + "/resume", "")).status());
    assertProblem(409, "schedule_state_conflict",
        judged("resumeSchedule", api.post(schedules + "/" + id + "/resume", "")));
    ApiClient.Reply replaced = judged("replaceSchedule", api.put(schedules + "/" + id, definition.copy()
        .put("cron", "30 3 * * *").encode()));
    assertEquals(200, replaced.status(), replaced.raw().body());
    assertEquals("30 3 * * *", replaced.body().getString("cron"));
    assertEquals("ACTIVE", replaced.body().getString("status"));
    assertTrue(replaced.body().getString("next_fire_time").endsWith("T19:30:00.000Z"), "03:30 in Shanghai");
    assertProblem(404, "not_found", judged("replaceSchedule", otherTenant.put(schedules + "/" + id,
        definition.encode())));
    ApiClient.Reply triggered = judged("triggerSchedule", api.post(schedules + "/" + id + "/trigger", ""));
    assertEquals(201, triggered.status(), triggered.raw().body());
    assertEquals(200, judged("deleteSchedule", api.delete(schedules + "/" + id)).status());
    assertProblem(409, "schedule_state_conflict", judged("deleteSchedule", api.delete(schedules + "/" + id)));
    assertProblem(409, "schedule_state_conflict",
        judged("triggerSchedule", api.post(schedules + "/" + id + "/trigger", "")));
    assertProblem(404, "not_found", judged("deleteSchedule", otherTenant.delete(schedules + "/" + id)));
    assertProblem(409, "schedule_state_conflict", judged("replaceSchedule", api.put(schedules + "/" + id,
        definition.encode())));
  }

  private ApiClient.Reply judged(String operationId, ApiClient.Reply r) {
    contract.assertConforms(operationId, r.status(), headers(r.raw()), r.raw().body());
    return r;
  }

  private static Map<String, String> headers(HttpResponse<?> r) {
    Map<String, String> out = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    r.headers().map().forEach((name, values) -> out.put(name, values.get(0)));
    return out;
  }

  private static void assertProblem(int status, String code, ApiClient.Reply r) {
    assertEquals(status, r.status(), r.raw().body());
    assertEquals(code, r.code(), r.raw().body());
    assertEquals("application/problem+json", r.raw().headers().firstValue("content-type").orElse(""));
  }

  private String created(ApiClient.Reply r) {
    judged("createTask", r);
    assertEquals(201, r.status(), r.raw().body());
    return r.body().getString("task_id");
  }

  private JsonObject awaitStatus(String taskId, String status) throws Exception {
    long deadline = System.currentTimeMillis() + 30_000;
    JsonObject last = null;
    while (System.currentTimeMillis() < deadline) {
      last = judged("getTask", api.get(TASKS + "/" + taskId)).body();
      if (status.equals(last.getString("status"))) {
        return last;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("task " + taskId + " did not reach " + status + "; last seen " + last);
  }

  private JsonObject httpTask(String type, long inMs) {
    return new JsonObject().put("task_type", type).put("callback_url", receiver.url())
        .put("trigger_time", Instant.ofEpochMilli(System.currentTimeMillis() + inMs).toString())
        .put("payload", new JsonObject().put("user", 42)).put("dedupe", false);
  }

  private static JsonObject processorTask(String processor, long inMs) {
    JsonObject t = new JsonObject().put("task_type", "contract." + processor).put("processor", processor)
        .put("payload", new JsonObject().put("n", 1)).put("dedupe", false);
    return inMs == 0 ? t : t.put("delay_ms", inMs);
  }
}
