package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 10's findings 1-5, 7 and 8, each as the security review sent it, against the jar: every hostile
 * or careless request gets a prompt 4xx problem+json, nothing is stored from it, what was stored can be
 * read and listed, and no input leaves a SEVERE line in the node's log.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HostileRequestsIT {
  private static final String TENANT = "hostile";
  private static final String TASKS = "/openapi/v1/tasks";
  private static TestPostgres pg;
  private static Receiver receiver;
  private static AxProcess node;
  private static ApiClient api;

  @BeforeAll
  static void start() throws Exception {
    pg = TestPostgres.create();
    receiver = new Receiver();
    node = startNode();
    api = new ApiClient(node.port, AxCluster.KEY, AxCluster.SECRET);
  }

  private static AxProcess startNode() throws Exception {
    return AxProcess.start("server", AxProcess.env(
        "AX_PG_URL", pg.url(),
        "AX_BOOTSTRAP_KEY", AxCluster.KEY + ":" + AxCluster.SECRET + ":" + TENANT,
        "AX_CALLBACK_ALLOWLIST", "127.0.0.1",
        "AX_RATE_LIMIT", "100000"));
  }

  @AfterAll
  static void stop() throws Exception {
    String log = node == null ? "" : node.output();
    if (node != null) {
      node.close();
    }
    receiver.close();
    pg.close();
    assertFalse(log.contains("SEVERE"), "input alone must not cause a SEVERE log entry:\n" + log);
  }

  private static long storedTasks() throws Exception {
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password());
         ResultSet r = c.createStatement().executeQuery("SELECT count(*) FROM tasks WHERE tenant_id = '" + TENANT + "'")) {
      r.next();
      return r.getLong(1);
    }
  }

  private static String task(String extra) {
    // dedupe off: this class submits equal tasks on purpose, each meant to be stored
    return "{\"task_type\":\"hostile.t\",\"dedupe\":false,\"callback_url\":\"" + receiver.url() + "\",\"delay_ms\":3600000"
        + (extra.isEmpty() ? "" : "," + extra) + "}";
  }

  /** Sends the body, expects a 400 problem naming {@code field}, and that nothing was stored. */
  private static void refused(String path, String body, String field) throws Exception {
    long before = storedTasks();
    ApiClient.Reply r = api.post(path, body);
    assertEquals(400, r.status(), body + " -> " + r.raw().body());
    assertEquals("application/problem+json", r.raw().headers().firstValue("content-type").orElse(""));
    assertTrue(r.body().getString("detail").startsWith(field), r.body().encode());
    assertEquals(before, storedTasks(), "stored from a refused request: " + body);
  }

  private static void readableAndListed(String id) throws Exception {
    ApiClient.Reply got = api.get(TASKS + "/" + id);
    assertEquals(200, got.status(), got.raw().body());
    ApiClient.Reply page = api.get(TASKS + "?task_type=" + got.body().getString("task_type") + "&limit=100");
    assertEquals(200, page.status(), page.raw().body());
    assertTrue(page.body().getJsonArray("items").stream().anyMatch(t -> ((JsonObject) t).getString("task_id").equals(id)));
  }

  // ---- finding 1: trigger times PostgreSQL stores but cannot give back (the row hung every read)

  @ParameterizedTest
  @ValueSource(strings = {"-5000-01-01T00:00:00.000Z", "-4713-11-24T00:00:00.000Z", "+999999999-12-31T23:59:59.999Z",
      "1970-01-01T00:00:00Z", "2099-01-01T00:00:00Z"})
  void aTriggerTimeOutOfRangeIsRefusedAndStoresNothing(String time) throws Exception {
    refused(TASKS, "{\"task_type\":\"hostile.t\",\"callback_url\":\"" + receiver.url() + "\",\"trigger_time\":\""
        + time + "\"}", "trigger_time");
  }

  @Test
  void aBatchWithAnImpossibleTriggerTimeRefusesThatItemOnlyAndEveryStoredItemReadsBack() throws Exception {
    long before = storedTasks();
    String bad = "{\"task_type\":\"hostile.batch\",\"callback_url\":\"" + receiver.url()
        + "\",\"trigger_time\":\"-4713-11-24T00:00:00.000Z\"}";
    String good = task("").replace("hostile.t", "hostile.batch");
    ApiClient.Reply r = api.post(TASKS + "/batch", "{\"tasks\":[" + good + "," + bad + "," + good + "]}");
    assertEquals(200, r.status(), r.raw().body());
    JsonArray results = r.body().getJsonArray("results");
    assertEquals(List.of(201, 400, 201), results.stream().map(o -> ((JsonObject) o).getInteger("status_code")).toList());
    assertEquals(before + 2, storedTasks());
    readableAndListed(results.getJsonObject(0).getString("task_id"));
    readableAndListed(results.getJsonObject(2).getString("task_id"));
  }

  // ---- finding 2: a payload too deep to encode back

  @Test
  void aPayloadSixtyFourDeepIsStoredAndReadBackAndOneDeeperIsRefused() throws Exception {
    ApiClient.Reply ok = api.post(TASKS, task("\"payload\":" + "[".repeat(64) + "]".repeat(64)));
    assertEquals(201, ok.status(), ok.raw().body());
    readableAndListed(ok.body().getString("task_id"));
    refused(TASKS, task("\"payload\":" + "[".repeat(65) + "]".repeat(65)), "payload");
    refused(TASKS, task("\"payload\":" + "[".repeat(998) + "]".repeat(998)), "payload");
  }

  @Test
  void aPayloadTooDeepStoredByAnOlderVersionIsServedAsTextNotAHang() throws Exception {
    long id = 9_000_000_000_000_001L;
    String deep = "[".repeat(999) + "]".repeat(999);
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password())) {
      var insert = c.prepareStatement("INSERT INTO tasks (task_id, tenant_id, api_key, task_type, trigger_time, "
          + "next_trigger_time, status, callback_url, payload) VALUES (?, ?, ?, 'hostile.old', now() + interval '1 day', "
          + "now() + interval '1 day', 'DELAYED', ?, ?::jsonb)");
      insert.setLong(1, id);
      insert.setString(2, TENANT);
      insert.setString(3, AxCluster.KEY);
      insert.setString(4, receiver.url());
      insert.setString(5, deep);
      insert.executeUpdate();
    }
    ApiClient.Reply got = api.get(TASKS + "/" + id);
    assertEquals(200, got.status(), got.raw().body());
    assertEquals(deep, got.body().getString("payload"));
    readableAndListed(Long.toString(id));
  }

  // ---- finding 3: 500s from signed input

  @ParameterizedTest
  @ValueSource(strings = {"\"payload\":{\"a\":\"x\\u0000y\"}", "\"payload\":{\"a\\u0000\":1}", "\"biz_key\":\"k\\u0000\""})
  void aNulCharacterIsA400NamingWhere(String field) throws Exception {
    refused(TASKS, task(field), field.startsWith("\"biz_key\"") ? "biz_key" : "payload");
  }

  @Test
  void aNulInOneBatchItemRefusesOnlyThatItem() throws Exception {
    long before = storedTasks();
    String nul = task("\"payload\":{\"a\":\"x\\u0000\"}");
    ApiClient.Reply r = api.post(TASKS + "/batch", "{\"tasks\":[" + task("") + "," + nul + "," + task("") + "]}");
    assertEquals(200, r.status(), r.raw().body());
    JsonArray results = r.body().getJsonArray("results");
    assertEquals(List.of(201, 400, 201), results.stream().map(o -> ((JsonObject) o).getInteger("status_code")).toList());
    assertTrue(results.getJsonObject(1).getJsonObject("error").getString("detail").startsWith("tasks.1.payload.a"));
    assertEquals(before + 2, storedTasks());
  }

  @Test
  void aBatchWhoseTasksIsAnObjectIsA400() throws Exception {
    refused(TASKS + "/batch", "{\"tasks\":{\"a\":1}}", "tasks");
  }

  // ---- finding 4: integers of 2^64 and more wrapped

  @ParameterizedTest
  @ValueSource(strings = {"\"priority\":18446744073709551621", "\"max_retry\":-18446744073709551611",
      "\"timeout_ms\":18446744073709552616"})
  void anIntegerBeyondALongIsRefusedNotWrapped(String field) throws Exception {
    refused(TASKS, task(field), field.substring(1, field.indexOf('"', 1)));
  }

  @Test
  void aDelayOfTwoToTheSixtyFourIsRefusedNotZero() throws Exception {
    refused(TASKS, "{\"task_type\":\"hostile.t\",\"callback_url\":\"" + receiver.url()
        + "\",\"delay_ms\":18446744073709551616}", "delay_ms");
  }

  // ---- finding 5: bodies read before authentication; chunked bodies past the guards

  private static Map<String, String> headers(String... kv) {
    Map<String, String> h = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      h.put(kv[i], kv[i + 1]);
    }
    return h;
  }

  /** The head alone is sent: the answer must come without the body, and the connection must close. */
  private static RawConnection.Answer answeredBeforeTheBody(Map<String, String> head) throws Exception {
    try (RawConnection raw = new RawConnection(node.port, 3_000)) {
      RawConnection.Answer a = raw.head("POST", TASKS, head).read();
      assertEquals("application/problem+json", a.header("content-type"), a.body());
      assertTrue(raw.closedByServer(), "the connection stays open for an unread body");
      return a;
    }
  }

  @Test
  void anUnauthenticatedBodyIsNeverRead() throws Exception {
    String stale = Long.toString(System.currentTimeMillis() - 3_600_000);
    assertEquals(401, answeredBeforeTheBody(headers("Content-Type", "application/json",
        "Transfer-Encoding", "chunked")).status(), "no key, chunked");
    assertEquals(401, answeredBeforeTheBody(headers("Content-Type", "application/json", "Content-Length", "90000",
        "X-Ax-Key", "nobody")).status(), "unknown key");
    assertEquals(401, answeredBeforeTheBody(headers("Content-Type", "application/json", "Transfer-Encoding", "chunked",
        "X-Ax-Key", AxCluster.KEY, "X-Ax-Timestamp", stale, "X-Ax-Nonce", "n0nce-abc123",
        "X-Ax-Signature", "0".repeat(64))).status(), "a stale timestamp");
    assertEquals(401, answeredBeforeTheBody(headers("Content-Type", "application/json", "Content-Length", "90000",
        "X-Ax-Key", AxCluster.KEY, "X-Ax-Timestamp", Long.toString(System.currentTimeMillis()),
        "X-Ax-Nonce", "n0nce-abc123", "X-Ax-Signature", "not-hex")).status(), "a malformed signature");
  }

  @Test
  void aChunkedBodyGetsTheSameMediaTypeAndSizeChecksAsADeclaredOne() throws Exception {
    byte[] empty = new byte[0];
    Map<String, String> signedChunked = new LinkedHashMap<>(RawConnection.signed(AxCluster.KEY, AxCluster.SECRET, "POST",
        TASKS, null, empty));
    signedChunked.put("Transfer-Encoding", "chunked");
    assertEquals(415, answeredBeforeTheBody(signedChunked).status(), "chunked without a content type");
    signedChunked.put("Content-Type", "application/jsonx");
    assertEquals(415, answeredBeforeTheBody(signedChunked).status(), "application/jsonx");
    Map<String, String> declared = new LinkedHashMap<>(RawConnection.signed(AxCluster.KEY, AxCluster.SECRET, "POST",
        TASKS, null, empty));
    declared.put("Content-Type", "application/json");
    declared.put("Content-Length", Integer.toString(200 * 1024));
    assertEquals(413, answeredBeforeTheBody(declared).status(), "a declared body over 96 KiB");

    signedChunked.put("Content-Type", "application/json");
    try (RawConnection raw = new RawConnection(node.port, 5_000)) {
      raw.head("POST", TASKS, signedChunked);
      byte[] chunk = new byte[8 * 1024];
      java.util.Arrays.fill(chunk, (byte) ' ');
      try {
        for (int i = 0; i < 32; i++) { // 256 KiB streamed, well past the 96 KiB limit
          raw.chunk(chunk);
        }
      } catch (IOException closedOnUs) {
        // the server answered and closed at the limit: expected
      }
      RawConnection.Answer a = raw.read();
      assertEquals(413, a.status(), a.body());
    }
  }

  // ---- finding 7: the signed meaning and the executed meaning are one

  @Test
  void aQueryParameterNamedTwiceIsRefusedWhateverItsOrder() throws Exception {
    for (String query : List.of("status=READY&status=FAILED", "status=FAILED&status=READY")) {
      // signed over the sorted pairs, as a client that does not check for duplicates would
      String canonical = String.join("&", new java.util.TreeSet<>(List.of(query.split("&"))));
      Map<String, String> h = new LinkedHashMap<>();
      String ts = Long.toString(System.currentTimeMillis());
      String nonce = ApiClient.newNonce();
      h.put("X-Ax-Key", AxCluster.KEY);
      h.put("X-Ax-Timestamp", ts);
      h.put("X-Ax-Nonce", nonce);
      h.put("X-Ax-Signature", ax.signing.RequestSigning.hmacSha256Hex(AxCluster.SECRET,
          ax.signing.RequestSigning.stringToSign("GET", TASKS, canonical, ts, nonce, new byte[0])));
      try (RawConnection raw = new RawConnection(node.port, 3_000)) {
        RawConnection.Answer a = raw.head("GET", TASKS + "?" + query, h).read();
        assertEquals(400, a.status(), a.body());
        assertTrue(new JsonObject(a.body()).getString("detail").contains("'status' appears more than once"), a.body());
      }
    }
  }

  @Test
  void aPlusSignIsThePlusTheSignatureCovers() throws Exception {
    ApiClient.Reply plus = api.get(TASKS + "?task_type=a+b");
    ApiClient.Reply encoded = api.get(TASKS + "?task_type=a%2Bb");
    assertEquals(400, plus.status(), plus.raw().body()); // '+' is not allowed in a task type: it was read as '+'
    assertEquals(plus.raw().body(), encoded.raw().body());
  }

  // ---- found by the long fuzz run: a timeout of a few milliseconds reset requests Vert.x then logged SEVERE

  @Test
  void timeoutsOfAFewMillisecondsFailTheTaskQuietly() throws Exception {
    List<String> ids = new java.util.ArrayList<>();
    for (int timeout : new int[] {1, 2, 3, 5, 10, 1, 2, 3, 5, 10}) {
      ApiClient.Reply r = api.post(TASKS, "{\"task_type\":\"hostile.slow\",\"dedupe\":false,\"callback_url\":\"" + receiver.url()
          + "\",\"timeout_ms\":" + timeout + ",\"max_retry\":0}");
      assertEquals(201, r.status(), r.raw().body());
      ids.add(r.body().getString("task_id"));
    }
    long deadline = System.currentTimeMillis() + 20_000;
    for (String id : ids) {
      JsonObject t;
      do {
        Thread.sleep(100);
        t = api.get(TASKS + "/" + id).body();
      } while (!"FAILED".equals(t.getString("status")) && System.currentTimeMillis() < deadline);
      assertEquals("FAILED", t.getString("status"), t.encode());
      assertTrue(t.getString("error").startsWith("no response within timeout_ms"), t.encode());
    }
    // the SEVERE check is stop()'s, for everything this class sent
  }

  // ---- finding 8: a restarted node must not forget which requests it has seen

  @Test
  @Order(Integer.MAX_VALUE)
  void aReplayAfterTheNodeRestartsIsRefused() throws Exception {
    String body = task("");
    long signedAt = System.currentTimeMillis();
    String nonce = ApiClient.newNonce();
    assertEquals(201, api.send("POST", TASKS, null, body, signedAt, nonce, null).status());
    long stored = storedTasks();
    String log = node.output();
    node.close();
    assertFalse(log.contains("SEVERE"), "input alone must not cause a SEVERE log entry:\n" + log);
    node = startNode();
    api = api.withPort(node.port);
    ApiClient.Reply replay = api.send("POST", TASKS, null, body, signedAt, nonce, null);
    long storedAfter = storedTasks();
    FaultRow.record("forgeries", Map.of("forgeries_accepted", (replay.status() / 100 == 2 ? 1 : 0) + (storedAfter - stored),
            "replays_sent", 1),
        "a signed request replayed after the node restarted: 401 nonce_replayed, nothing stored");
    assertEquals(401, replay.status(), replay.raw().body());
    assertEquals("nonce_replayed", replay.code());
    assertEquals(stored, storedTasks(), "the replay stored a second task");
  }
}
