package ax.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ax.bridge.BridgeLimits;
import ax.bridge.ExecutorTokens;
import ax.metrics.AxMetrics;
import ax.protocol.ExecutorAddresses;
import ax.verticles.BridgeVerticle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the Python example executor (examples/python-executor/ax_executor.py) against the scheduler's own
 * bridge ({@link BridgeVerticle}: frame checks, token, stamping), with test consumers standing in for the
 * leader. It proves the Python side speaks the frames of the executor protocol
 * (docs/executor-protocol.md) as the node actually reads them: register with a token header, subscribe,
 * heartbeat, answer dispatch requests, batch results, drain on SIGTERM, and recover from a 410
 * heartbeat, an unanswered result batch and a lost connection.
 */
class PythonExecutorBridgeTest {

  private static final String EXECUTOR_ID = "ex-py-test";
  private static final String SECRET = "python-bridge-test-secret-0123456789abcdef";
  private static final String TASK_A = "7421394872192303104"; // beyond 2^53: must stay an exact string
  private static final String TASK_B = "7421394872192303105";
  private static final long WAIT_SECONDS = 20;
  private static final String REGISTERED = "executor " + EXECUTOR_ID + " registered with ";

  @TempDir
  Path tmp;

  private Vertx vertx;
  private final StandInScheduler scheduler = new StandInScheduler();
  private Process python;
  private Path record;
  private Path stderr;
  private final BlockingQueue<String> stdout = new LinkedBlockingQueue<>();

  @BeforeEach
  void start() {
    Assumptions.assumeTrue(onPath("python3"), "python3 is not on PATH");
    vertx = Vertx.vertx();
    scheduler.deploy();
  }

  @AfterEach
  void stop() throws Exception {
    if (python != null && python.isAlive()) {
      python.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
    if (vertx != null) {
      vertx.close().await();
    }
  }

  @Test
  void pythonExecutorRunsDispatchedEchoTasksAndDrainsCleanlyOnSigterm() throws Exception {
    int port = startBridge();
    launchPython(port);
    String registered = awaitRegistered();
    assertTrue(Pattern.matches(Pattern.quote(REGISTERED) + "127\\.0\\.0\\.1:" + port + " session [0-9a-f-]{36}",
        registered), registered);
    JsonObject registration = scheduler.registrations.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    assertEquals(EXECUTOR_ID, registration.getString("executor_id"));
    assertEquals(List.of("echo", "fail", "noop"), registration.getJsonArray("processors").getList());
    awaitHeartbeat();

    JsonObject ack = dispatch(7, TASK_A, TASK_B);
    assertEquals(new JsonArray().add(TASK_A).add(TASK_B), ack.getJsonArray("accepted"));
    assertEquals(new JsonArray(), ack.getJsonArray("rejected"));

    Map<String, JsonObject> byTask = awaitResults(2);
    for (String taskId : List.of(TASK_A, TASK_B)) {
      JsonObject outcome = byTask.get(taskId);
      assertEquals("SUCCESS", outcome.getString("status"), outcome::encode);
      assertTrue(outcome.getJsonObject("result").encode().contains("\"lang\":\"python\""), outcome::encode);
      assertEquals(new JsonObject().put("task", taskId), outcome.getJsonObject("result").getJsonObject("payload"));
      assertEquals(EXECUTOR_ID, outcome.getJsonObject("result").getString("executor_id"));
    }
    assertEquals(2, Files.readAllLines(record).size(), () -> read(record));

    assertDrainsAndExitsZero(sessionOf(registered));
  }

  @Test
  void pythonExecutorResendsUnansweredResultsDedupesFencesStaleEpochsAndRegistersAgainAfter410()
      throws Exception {
    launchPython(startBridge());
    String firstSession = sessionOf(awaitRegistered());
    awaitHeartbeat();

    scheduler.resultBatchesToFail.set(1);
    assertEquals(new JsonArray().add(TASK_A), dispatch(7, TASK_A).getJsonArray("accepted"));
    assertEquals("SUCCESS", awaitResults(1).get(TASK_A).getString("status"));
    assertEquals(1, scheduler.failedResultBatches.get(), "the first batch was refused, then sent again");

    // Same (task_id, attempt, shard_index) again: accepted, not run again, its result sent again.
    assertEquals(new JsonArray().add(TASK_A), dispatch(7, TASK_A).getJsonArray("accepted"));
    assertEquals("SUCCESS", awaitResults(1).get(TASK_A).getString("status"));
    assertEquals(1, Files.readAllLines(record).size(), () -> read(record));

    JsonObject stale = dispatch(6, TASK_B);
    assertEquals(new JsonArray(), stale.getJsonArray("accepted"));
    assertEquals(new JsonArray().add(TASK_B), stale.getJsonArray("rejected"));
    assertEquals("stale_epoch", stale.getString("reason"));

    scheduler.goneOnNextHeartbeat.set(true);
    String secondSession = sessionOf(awaitRegistered());
    assertNotEquals(firstSession, secondSession);
    awaitHeartbeat();
    assertEquals(new JsonArray().add(TASK_B), dispatch(7, TASK_B).getJsonArray("accepted"));
    assertEquals("SUCCESS", awaitResults(1).get(TASK_B).getString("status"));
    assertEquals(secondSession, scheduler.lastResultSession);

    assertDrainsAndExitsZero(secondSession);
  }

  @Test
  void pythonExecutorMovesToTheNextServerWhenItsConnectionDrops() throws Exception {
    BridgeVerticle first = bridge();
    String firstDeployment = vertx.deployVerticle(first).await();
    int firstPort = first.actualPort();
    int secondPort = startBridge();
    launchPython(firstPort, secondPort);
    assertTrue(awaitRegistered().contains("127.0.0.1:" + firstPort));

    vertx.undeploy(firstDeployment).await(); // closes its connections too
    String again = awaitRegistered();
    assertTrue(again.contains("127.0.0.1:" + secondPort), again);
    awaitHeartbeat();
    assertEquals(new JsonArray().add(TASK_A), dispatch(7, TASK_A).getJsonArray("accepted"));
    assertEquals("SUCCESS", awaitResults(1).get(TASK_A).getString("status"));

    assertDrainsAndExitsZero(sessionOf(again));
  }

  // ---- steps --------------------------------------------------------------------------------------

  private int startBridge() throws Exception {
    BridgeVerticle bridge = bridge();
    vertx.deployVerticle(bridge).await();
    return bridge.actualPort();
  }

  private BridgeVerticle bridge() {
    return new BridgeVerticle(new BridgeVerticle.Settings("127.0.0.1", 0, BridgeLimits.defaults(500)),
        ExecutorTokens.verifier(vertx, SECRET), new AxMetrics(new SimpleMeterRegistry()));
  }

  private void launchPython(int... ports) throws IOException {
    record = tmp.resolve("record.txt");
    stderr = tmp.resolve("python-stderr.txt");
    List<String> servers = new ArrayList<>();
    for (int port : ports) {
      servers.add("127.0.0.1:" + port);
    }
    python = new ProcessBuilder("python3", "examples/python-executor/ax_executor.py",
        "--servers", String.join(",", servers), "--token", ExecutorTokens.mint(vertx, SECRET, EXECUTOR_ID, 600),
        "--processors", "echo,noop,fail", "--record", record.toString())
        .redirectError(stderr.toFile())
        .start();
    // Read stdout on a daemon thread so a silent process cannot hang the test.
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(python.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          stdout.add(line);
        }
      } catch (IOException ignored) {
        // the process ended; nothing more to read
      }
    }, "python-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  private String awaitRegistered() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (System.nanoTime() < deadline) {
      String line = stdout.poll(100, TimeUnit.MILLISECONDS);
      if (line != null && line.startsWith(REGISTERED)) {
        return line;
      }
    }
    throw new AssertionError("no registered line; stderr:\n" + read(stderr));
  }

  /**
   * The inbox subscription travels before the first heartbeat on the same socket, so once a heartbeat
   * of the current session is in, a dispatch finds the consumer (the real scheduler waits for it too).
   */
  private void awaitHeartbeat() throws InterruptedException {
    scheduler.heartbeats.clear();
    assertNotNull(scheduler.heartbeats.poll(WAIT_SECONDS, TimeUnit.SECONDS), () -> "no heartbeat; stderr:\n" + read(stderr));
  }

  private JsonObject dispatch(long epoch, String... taskIds) {
    JsonArray tasks = new JsonArray();
    for (String id : taskIds) {
      tasks.add(new JsonObject().put("task_id", id).put("attempt", 1).put("processor", "echo")
          .put("task_type", "demo.echo").put("payload", new JsonObject().put("task", id)).put("priority", 5)
          .put("pool", "default").put("timeout_ms", 60_000).put("trigger_time", 1_764_460_800_000L)
          .put("shard_index", 0).put("shard_total", 1));
    }
    JsonObject body = new JsonObject().put("epoch", epoch).put("tasks", tasks);
    return vertx.eventBus()
        .<JsonObject>request(ExecutorAddresses.inbox(EXECUTOR_ID), body, new DeliveryOptions().setSendTimeout(2000))
        .await().body();
  }

  private Map<String, JsonObject> awaitResults(int count) throws InterruptedException {
    Map<String, JsonObject> byTask = new HashMap<>();
    while (byTask.size() < count) {
      JsonObject outcome = scheduler.results.poll(WAIT_SECONDS, TimeUnit.SECONDS);
      assertNotNull(outcome, () -> "results missing, got " + byTask.keySet() + "; stderr:\n" + read(stderr));
      byTask.put(outcome.getString("task_id"), outcome);
    }
    return byTask;
  }

  private void assertDrainsAndExitsZero(String session) throws InterruptedException {
    python.destroy(); // SIGTERM
    assertTrue(python.waitFor(WAIT_SECONDS, TimeUnit.SECONDS), "executor did not exit after SIGTERM");
    assertEquals(0, python.exitValue(), () -> "exit code; stderr:\n" + read(stderr));
    List<JsonObject> drains = new ArrayList<>();
    scheduler.drains.drainTo(drains);
    assertEquals(2, drains.size(), drains::toString);
    assertEquals(new JsonObject().put("executor_id", EXECUTOR_ID).put("session", session), drains.get(0));
    assertEquals(new JsonObject().put("executor_id", EXECUTOR_ID).put("session", session).put("done", true),
        drains.get(1));
  }

  // ---- the stand-in scheduler ---------------------------------------------------------------------

  /** Answers every protocol request the way the contract says, records them, and can misbehave on cue. */
  private final class StandInScheduler {
    final BlockingQueue<JsonObject> registrations = new LinkedBlockingQueue<>();
    final BlockingQueue<JsonObject> heartbeats = new LinkedBlockingQueue<>();
    final BlockingQueue<JsonObject> results = new LinkedBlockingQueue<>();
    final BlockingQueue<JsonObject> drains = new LinkedBlockingQueue<>();
    final AtomicInteger resultBatchesToFail = new AtomicInteger();
    final AtomicInteger failedResultBatches = new AtomicInteger();
    final AtomicBoolean goneOnNextHeartbeat = new AtomicBoolean();
    volatile String lastResultSession;

    void deploy() {
      vertx.eventBus().<JsonObject>consumer(ExecutorAddresses.REGISTER, m -> {
        registrations.add(m.body());
        m.reply(new JsonObject().put("executor_id", m.body().getString("executor_id"))
            .put("session", UUID.randomUUID().toString()).put("inbox", ExecutorAddresses.inbox(EXECUTOR_ID))
            .put("heartbeat_ms", 500).put("ack_timeout_ms", 2000).put("epoch", 7));
      });
      vertx.eventBus().<JsonObject>consumer(ExecutorAddresses.HEARTBEAT, m -> {
        if (goneOnNextHeartbeat.compareAndSet(true, false)) {
          m.fail(410, "unknown session");
          return;
        }
        heartbeats.add(m.body());
        m.reply(new JsonObject().put("status", "LIVE").put("epoch", 7));
      });
      vertx.eventBus().<JsonObject>consumer(ExecutorAddresses.RESULT, m -> {
        if (resultBatchesToFail.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
          failedResultBatches.incrementAndGet();
          m.fail(500, "not committed");
          return;
        }
        lastResultSession = m.body().getString("session");
        JsonArray applied = new JsonArray();
        m.body().getJsonArray("results").forEach(r -> {
          results.add((JsonObject) r);
          applied.add(((JsonObject) r).getString("task_id"));
        });
        m.reply(new JsonObject().put("applied", applied).put("refused", new JsonArray()));
      });
      vertx.eventBus().<JsonObject>consumer(ExecutorAddresses.DRAIN, m -> {
        drains.add(m.body());
        m.reply(new JsonObject().put("status", m.body().getBoolean("done", false) ? "GONE" : "DRAINING"));
      });
    }
  }

  // ---- helpers ------------------------------------------------------------------------------------

  private static String sessionOf(String registeredLine) {
    return registeredLine.substring(registeredLine.lastIndexOf(' ') + 1);
  }

  private static boolean onPath(String command) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return false;
  }

  private static String read(Path file) {
    try {
      return file != null && Files.exists(file) ? Files.readString(file) : "(none)";
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }
}
