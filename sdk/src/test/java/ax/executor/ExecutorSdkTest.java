package ax.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ax.protocol.ExecutorAddresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.bridge.BridgeEventType;
import io.vertx.ext.bridge.BridgeOptions;
import io.vertx.ext.bridge.PermittedOptions;
import io.vertx.ext.eventbus.bridge.tcp.BridgeEvent;
import io.vertx.ext.eventbus.bridge.tcp.TcpEventBusBridge;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SDK against a real {@link TcpEventBusBridge} guarded by token checks like the server's, with test
 * consumers standing in for the leader on the {@code ax.exec.*} addresses.
 */
class ExecutorSdkTest {
  private static final String SECRET = "integration-test-secret-0123456789abcdef";
  private static final int EPOCH = 7;
  private static final long WAIT_S = 5;

  @TempDir
  Path tmp;

  private Vertx vertx;
  private TcpEventBusBridge bridge;
  private int port;
  private Path record;
  private AxExecutor executor;
  private final Map<NetSocket, String> authenticated = new ConcurrentHashMap<>();

  // What the stand-in leader saw.
  private final BlockingQueue<JsonObject> registers = new LinkedBlockingQueue<>();
  private final BlockingQueue<JsonObject> heartbeats = new LinkedBlockingQueue<>();
  private final BlockingQueue<JsonObject> results = new LinkedBlockingQueue<>();
  private final BlockingQueue<JsonObject> drains = new LinkedBlockingQueue<>();
  /** How many of the next result batches / heartbeats to fail. */
  private final AtomicInteger failResults = new AtomicInteger();
  private final AtomicInteger expireHeartbeats = new AtomicInteger();

  @BeforeEach
  void startBridgeAndLeader() throws Exception {
    vertx = Vertx.vertx();
    record = tmp.resolve("executions.txt");
    JWTAuth verifier = TestTokens.verifier(vertx, SECRET);

    BridgeOptions options = new BridgeOptions()
        .addOutboundPermitted(new PermittedOptions().setAddressRegex(Pattern.quote(ExecutorAddresses.INBOX_PREFIX) + ".+"));
    ExecutorAddresses.INBOUND.forEach(a -> options.addInboundPermitted(new PermittedOptions().setAddress(a)));
    bridge = TcpEventBusBridge.create(vertx, options, new NetServerOptions().setHost("127.0.0.1"),
        ev -> guard(ev, verifier));
    port = freePort();
    bridge.listen(port, "127.0.0.1").await(WAIT_S, TimeUnit.SECONDS);

    vertx.eventBus().<JsonObject>consumer(ExecutorAddresses.REGISTER, this::onRegister);
    vertx.eventBus().<JsonObject>consumer(ExecutorAddresses.HEARTBEAT, msg -> {
      heartbeats.add(stamped(msg));
      if (expireHeartbeats.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        msg.fail(410, "unknown session");
      } else {
        msg.reply(new JsonObject().put("status", "LIVE").put("epoch", EPOCH));
      }
    });
    vertx.eventBus().<JsonObject>consumer(ExecutorAddresses.RESULT, msg -> {
      results.add(stamped(msg));
      if (failResults.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        msg.fail(503, "leader busy");
        return;
      }
      JsonArray applied = new JsonArray();
      msg.body().getJsonArray("results").forEach(r -> applied.add(((JsonObject) r).getString("task_id")));
      msg.reply(new JsonObject().put("applied", applied).put("refused", new JsonArray()));
    });
    vertx.eventBus().<JsonObject>consumer(ExecutorAddresses.DRAIN, msg -> {
      drains.add(stamped(msg));
      msg.reply(new JsonObject().put("status", msg.body().getBoolean("done", false) ? "GONE" : "DRAINING"));
    });
  }

  @AfterEach
  void stop() throws Exception {
    if (executor != null) {
      executor.close().get(WAIT_S, TimeUnit.SECONDS);
    }
    vertx.close().await(WAIT_S, TimeUnit.SECONDS);
  }

  // ---- the scenarios

  @Test
  void registersHeartbeatsRunsADispatchAndReportsItsResult() throws Exception {
    startExecutor("ex-1", AxExecutor.builder().handler("echo", TestHandlers.ECHO));

    JsonObject register = poll(registers);
    assertEquals("ex-1", register.getString("executor_id"));
    assertEquals("ex-1", register.getString("stamped_executor_id"));
    assertEquals(new JsonArray().add("echo"), register.getJsonArray("processors"));
    assertEquals(new JsonObject().put("high", 8).put("default", 16).put("slow", 8), register.getJsonObject("capacity"));
    assertEquals(256, register.getInteger("buffer"));
    assertEquals("z1", register.getString("zone"));
    JsonObject heartbeat = poll(heartbeats);
    assertEquals(32, heartbeat.getInteger("free_threads"));
    assertEquals(0, heartbeat.getInteger("backlog"));
    assertNotNull(heartbeat.getString("session"));

    JsonObject task = task("7421394872192303104", 1, "echo").put("payload", new JsonObject().put("order", 42));
    JsonObject ack = dispatch("ex-1", EPOCH, task);

    assertEquals(new JsonArray().add("7421394872192303104"), ack.getJsonArray("accepted"));
    assertEquals(new JsonArray(), ack.getJsonArray("rejected"));
    JsonObject result = pollResult("7421394872192303104");
    assertEquals("SUCCESS", result.getString("status"));
    assertEquals(new JsonObject().put("payload", new JsonObject().put("order", 42)).put("executor_id", "ex-1")
        .put("shard_index", 0), result.getJsonObject("result"));
    assertEquals(1, result.getInteger("attempt"));

    // The same (task_id, attempt) again, e.g. after a lost ack: accepted, not run, its result re-sent.
    // (Wait for the first report to be answered: while it is on the wire the SDK does not send it twice.)
    awaitTrue(() -> executor.stats().applied() == 1);
    JsonObject again = dispatch("ex-1", EPOCH, task);
    assertEquals(new JsonArray().add("7421394872192303104"), again.getJsonArray("accepted"));
    JsonObject resent = pollResult("7421394872192303104");
    assertEquals(result, resent);
    assertRecorded(List.of("7421394872192303104 1 0 ex-1"));
    assertEquals(1, executor.stats().executed());
    assertEquals(1, executor.stats().deduplicated());

    // A later attempt of a task that already succeeded here (its ack came too late and the scheduler
    // handed it out again): not run again, the result goes back under the new attempt (R5).
    awaitTrue(() -> executor.stats().applied() == 2);
    JsonObject retried = dispatch("ex-1", EPOCH, task("7421394872192303104", 2, "echo")
        .put("payload", new JsonObject().put("order", 42)));
    assertEquals(new JsonArray().add("7421394872192303104"), retried.getJsonArray("accepted"));
    JsonObject underAttempt2 = pollResult("7421394872192303104");
    assertEquals(2, underAttempt2.getInteger("attempt"));
    assertEquals(result.getJsonObject("result"), underAttempt2.getJsonObject("result"));
    assertEquals(1, Files.readAllLines(record).size(), "still one execution");
  }

  @Test
  void aDispatchedTraceparentReachesTheHandlerAndComesBackWithTheResult() throws Exception {
    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    BlockingQueue<TaskContext> seen = new LinkedBlockingQueue<>();
    startExecutor("ex-1", AxExecutor.builder().handler("echo", ctx -> {
      seen.add(ctx);
      return "ok";
    }));
    poll(heartbeats);

    dispatch("ex-1", EPOCH, task("21", 1, "echo").put("traceparent", traceparent).put("tracestate", "ax=1"));
    JsonObject traced = pollResult("21");
    assertEquals(traceparent, traced.getString("traceparent"), "the result names the trace it ran under");
    dispatch("ex-1", EPOCH, task("22", 1, "echo"));
    JsonObject untraced = pollResult("22");
    assertFalse(untraced.containsKey("traceparent"), "no trace in, none out: " + untraced);
    TaskContext first = seen.poll(WAIT_S, TimeUnit.SECONDS);
    TaskContext second = seen.poll(WAIT_S, TimeUnit.SECONDS);
    TaskContext tracedCtx = "21".equals(first.taskId()) ? first : second;
    assertEquals(traceparent, tracedCtx.traceparent());
    assertEquals("ax=1", tracedCtx.tracestate());
    assertNull(("21".equals(first.taskId()) ? second : first).traceparent());
  }

  @Test
  void aFailingHandlerReportsFailedWithItsMessage() throws Exception {
    startExecutor("ex-1", AxExecutor.builder().handler("fail", TestHandlers.FAIL));
    poll(heartbeats);

    dispatch("ex-1", EPOCH, task("11", 3, "fail"));

    JsonObject result = pollResult("11");
    assertEquals("FAILED", result.getString("status"));
    assertEquals("demo failure", result.getString("error"));
    assertNull(result.getValue("result"));
  }

  @Test
  void aDispatchBeyondThreadsPlusBufferIsPartlyRejected() throws Exception {
    startExecutor("ex-1", AxExecutor.builder().handler("sleep", TestHandlers.SLEEP)
        .pools(new PoolSizes(1, 1, 1)).buffer(1));
    poll(heartbeats);

    JsonObject[] tasks = new JsonObject[6];
    for (int i = 0; i < tasks.length; i++) {
      tasks[i] = task(Integer.toString(100 + i), 1, "sleep").put("payload", new JsonObject().put("ms", 300));
    }
    JsonObject ack = dispatch("ex-1", EPOCH, tasks);

    assertEquals(new JsonArray().add("100").add("101").add("102").add("103"), ack.getJsonArray("accepted"));
    assertEquals(new JsonArray().add("104").add("105"), ack.getJsonArray("rejected"));
    assertNull(ack.getString("reason"));
    // All four went to the default pool (one thread): one runs, three wait in the shared buffer.
    JsonObject busy = pollHeartbeatWhere(h -> h.getInteger("backlog") == 3);
    assertEquals(0, busy.getJsonObject("free").getInteger("default"));
    assertEquals(2, busy.getInteger("free_threads"));
  }

  @Test
  void aDispatchFromAnOlderEpochIsRejectedWhole() throws Exception {
    startExecutor("ex-1", AxExecutor.builder().handler("noop", TestHandlers.NOOP));
    poll(heartbeats);

    JsonObject ack = dispatch("ex-1", EPOCH - 1, task("21", 1, "noop"), task("22", 1, "noop"));

    assertEquals(new JsonArray(), ack.getJsonArray("accepted"));
    assertEquals(new JsonArray().add("21").add("22"), ack.getJsonArray("rejected"));
    assertEquals("stale_epoch", ack.getString("reason"));
    assertFalse(Files.exists(record) && !Files.readAllLines(record).isEmpty());
  }

  @Test
  void aResultBatchThatFailsIsKeptAndSentAgain() throws Exception {
    startExecutor("ex-1", AxExecutor.builder().handler("noop", TestHandlers.NOOP));
    poll(heartbeats);
    failResults.set(1);

    dispatch("ex-1", EPOCH, task("31", 1, "noop"));

    JsonObject first = pollResult("31");
    JsonObject second = pollResult("31"); // re-sent by the next heartbeat at the latest
    assertEquals(first, second);
    awaitTrue(() -> executor.stats().applied() == 1);
  }

  @Test
  void anExpiredSessionRegistersAgainOnTheSameConnection() throws Exception {
    expireHeartbeats.set(1);
    startExecutor("ex-1", AxExecutor.builder().handler("noop", TestHandlers.NOOP));

    String firstSession = poll(registers).getString("answered_session");
    String secondSession = poll(registers).getString("answered_session");
    assertNotEquals(firstSession, secondSession);
    awaitTrue(() -> secondSession.equals(poll(heartbeats).getString("session")));

    // Still subscribed exactly once: a dispatch runs once.
    dispatch("ex-1", EPOCH, task("41", 1, "noop"));
    pollResult("41");
    assertRecorded(List.of("41 1 0 ex-1"));
  }

  @Test
  void drainFinishesRunningWorkReportsItAndSaysDone() throws Exception {
    startExecutor("ex-1", AxExecutor.builder().handler("sleep", TestHandlers.SLEEP));
    poll(heartbeats);
    dispatch("ex-1", EPOCH, task("51", 1, "sleep").put("payload", new JsonObject().put("ms", 400)));

    var summary = executor.drain();

    JsonObject drain = poll(drains);
    assertFalse(drain.getBoolean("done", false));
    assertNotNull(drain.getString("session"));
    JsonObject late = dispatch("ex-1", EPOCH, task("52", 1, "sleep"));
    assertEquals(new JsonArray().add("52"), late.getJsonArray("rejected"));
    assertEquals("SUCCESS", pollResult("51").getString("status"));
    assertTrue(poll(drains).getBoolean("done"));
    ExecutorSummary done = summary.get(WAIT_S, TimeUnit.SECONDS);
    assertTrue(done.clean());
    assertEquals(1, done.executed());
    assertEquals(0, done.unreported());
  }

  @Test
  void aTokenSignedWithAnotherSecretNeverRegisters() throws Exception {
    String forged = TestTokens.mint(vertx, "some-other-secret-0123456789abcdef", "ex-1", 60);
    AtomicInteger drops = new AtomicInteger();
    executor = AxExecutor.builder().servers("127.0.0.1:" + port).token(forged)
        .handler("noop", TestHandlers.NOOP)
        .listener(new ExecutorListener() {
          @Override
          public void disconnected(ServerAddress server, Throwable cause) {
            drops.incrementAndGet();
          }
        })
        .build();
    executor.start();

    awaitTrue(() -> drops.get() >= 2);
    assertTrue(registers.isEmpty());
  }

  @Test
  void aDeadServerIsSkippedAndADroppedConnectionReRegisters() throws Exception {
    int dead = freePort();
    startExecutor("ex-1", AxExecutor.builder().handler("noop", TestHandlers.NOOP),
        "127.0.0.1:" + dead + ",127.0.0.1:" + port);
    String first = poll(registers).getString("answered_session");

    authenticated.keySet().forEach(NetSocket::close); // the node drops us

    // Round-robin: the dead server first, then this one again, with a new session.
    String second = poll(registers).getString("answered_session");
    assertNotEquals(first, second);
    awaitTrue(() -> second.equals(poll(heartbeats).getString("session")));
    dispatch("ex-1", EPOCH, task("61", 1, "noop"));
    assertEquals("SUCCESS", pollResult("61").getString("status"));
  }

  // ---- the stand-in bridge guard and leader

  /** Like the server's guard: the first frame must be a register with a valid token; stamps executor_id. */
  private void guard(BridgeEvent ev, JWTAuth verifier) {
    if (ev.type() == BridgeEventType.SOCKET_PING) {
      ev.complete(true);
      return;
    }
    JsonObject raw = ev.getRawMessage();
    String executorId = authenticated.get(ev.socket());
    if (executorId != null) {
      if (ev.type() == BridgeEventType.REGISTER) {
        ev.complete(ExecutorAddresses.inbox(executorId).equals(raw.getString("address")));
      } else {
        ev.setRawMessage(stamp(raw, executorId));
        ev.complete(true);
      }
      return;
    }
    JsonObject headers = raw == null ? null : raw.getJsonObject("headers");
    if (ev.type() != BridgeEventType.SEND || !ExecutorAddresses.REGISTER.equals(raw.getString("address"))
        || headers == null) {
      ev.complete(false);
      return;
    }
    TestTokens.verify(verifier, headers.getString("token")).onComplete(ar -> {
      if (ar.failed()) {
        ev.complete(false);
        // The server closes a connection that failed to authenticate (docs/executor-protocol.md).
        vertx.setTimer(50, t -> ev.socket().close());
        return;
      }
      authenticated.put(ev.socket(), ar.result());
      ev.setRawMessage(stamp(raw, ar.result()));
      ev.complete(true);
    });
  }

  private static JsonObject stamp(JsonObject raw, String executorId) {
    JsonObject copy = raw.copy();
    JsonObject headers = copy.getJsonObject("headers", new JsonObject());
    headers.remove("token");
    headers.put("executor_id", executorId);
    return copy.put("headers", headers);
  }

  private void onRegister(Message<JsonObject> msg) {
    String id = msg.body().getString("executor_id");
    if (!id.equals(msg.headers().get("executor_id"))) {
      msg.fail(403, "executor_id does not match the token");
      return;
    }
    String session = UUID.randomUUID().toString();
    registers.add(stamped(msg).put("answered_session", session));
    msg.reply(new JsonObject().put("executor_id", id).put("session", session)
        .put("inbox", ExecutorAddresses.inbox(id)).put("heartbeat_ms", 200).put("ack_timeout_ms", 2000)
        .put("epoch", EPOCH));
  }

  private static JsonObject stamped(Message<JsonObject> msg) {
    return msg.body().copy().put("stamped_executor_id", msg.headers().get("executor_id"));
  }

  // ---- helpers

  private void startExecutor(String id, AxExecutor.Builder builder) throws Exception {
    startExecutor(id, builder, "127.0.0.1:" + port);
  }

  private void startExecutor(String id, AxExecutor.Builder builder, String servers) throws Exception {
    FileExecutionRecorder recorder = new FileExecutionRecorder(record);
    executor = builder.servers(servers)
        .token(TestTokens.mint(vertx, SECRET, id, 600))
        .zone("z1")
        .recorder(recorder)
        .drainTimeout(Duration.ofSeconds(5))
        .build();
    executor.start().get(WAIT_S, TimeUnit.SECONDS);
  }

  private static JsonObject task(String id, int attempt, String processor) {
    return new JsonObject().put("task_id", id).put("attempt", attempt).put("processor", processor)
        .put("task_type", "test").put("priority", 5).put("pool", "default").put("timeout_ms", 10_000)
        .put("trigger_time", System.currentTimeMillis()).put("shard_index", 0).put("shard_total", 1);
  }

  /** Sends a dispatch to the executor's inbox as the leader does and returns the ack. */
  private JsonObject dispatch(String executorId, long epoch, JsonObject... tasks) throws Exception {
    JsonArray array = new JsonArray();
    for (JsonObject t : tasks) {
      array.add(t);
    }
    Future<Message<JsonObject>> reply = vertx.eventBus().request(ExecutorAddresses.inbox(executorId),
        new JsonObject().put("epoch", epoch).put("tasks", array), new DeliveryOptions().setSendTimeout(2_000));
    return reply.await(WAIT_S, TimeUnit.SECONDS).body();
  }

  /** The next reported result of {@code taskId} (skipping others). */
  private JsonObject pollResult(String taskId) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
    while (System.nanoTime() < deadline) {
      JsonObject batch = results.poll(100, TimeUnit.MILLISECONDS);
      if (batch == null) {
        continue;
      }
      assertEquals("ex-1", batch.getString("executor_id"));
      assertNotNull(batch.getString("session"));
      for (Object r : batch.getJsonArray("results")) {
        if (taskId.equals(((JsonObject) r).getString("task_id"))) {
          return (JsonObject) r;
        }
      }
    }
    throw new AssertionError("no result for task " + taskId);
  }

  private JsonObject pollHeartbeatWhere(java.util.function.Predicate<JsonObject> test) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
    while (System.nanoTime() < deadline) {
      JsonObject h = heartbeats.poll(100, TimeUnit.MILLISECONDS);
      if (h != null && test.test(h)) {
        return h;
      }
    }
    throw new AssertionError("no matching heartbeat");
  }

  private static JsonObject poll(BlockingQueue<JsonObject> queue) {
    try {
      JsonObject value = queue.poll(WAIT_S, TimeUnit.SECONDS);
      if (value == null) {
        throw new AssertionError("nothing arrived within " + WAIT_S + " s");
      }
      return value;
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  private interface Check {
    boolean ok() throws Exception;
  }

  /**
   * The record file holds {@code expected} (task_id attempt shard_index executor_id), each followed by the
   * start instant in epoch microseconds, which must lie within the last minute and not in the future.
   */
  private void assertRecorded(List<String> expected) throws IOException {
    List<String> lines = Files.readAllLines(record);
    assertEquals(expected.size(), lines.size(), "executions recorded: " + lines);
    long nowUs = System.currentTimeMillis() * 1_000L + 999;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      int cut = line.lastIndexOf(' ');
      assertEquals(expected.get(i), line.substring(0, cut));
      long startedUs = Long.parseLong(line.substring(cut + 1));
      assertTrue(startedUs <= nowUs && startedUs > nowUs - 60_000_000L, "started_at_us " + startedUs + " vs now " + nowUs);
    }
  }

  private static void awaitTrue(Check check) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
    while (System.nanoTime() < deadline) {
      if (check.ok()) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("condition not met within " + WAIT_S + " s");
  }

  private static int freePort() throws Exception {
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
