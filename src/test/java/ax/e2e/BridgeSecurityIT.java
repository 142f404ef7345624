package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * "No one let in" at the executor bridge of a real node: frames without a valid token are refused and
 * the connection closed; broken frames get an error and do not wedge the connection; an oversized
 * frame is refused before it is buffered; an authenticated executor cannot listen to another's inbox.
 */
class BridgeSecurityIT {
  private static TestPostgres pg;
  private static AxCluster cluster;
  private static int bridge;

  @BeforeAll
  static void start() throws Exception {
    pg = TestPostgres.create();
    cluster = AxCluster.start(pg, 1, Map.of());
    bridge = cluster.bridgePorts.get(0);
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
    pg.close();
  }

  private static JsonObject register(String executorId, String token) {
    JsonObject headers = token == null ? new JsonObject() : new JsonObject().put("token", token);
    return new JsonObject().put("type", "send").put("address", "ax.exec.register").put("replyAddress", "r1")
        .put("headers", headers).put("body", new JsonObject().put("executor_id", executorId)
            .put("processors", new JsonArray().add("echo")).put("capacity", new JsonObject().put("default", 2)));
  }

  /**
   * Findings 1 and 4 of the review: the bridge listened on every interface whatever AX_BRIDGE_HOST
   * said, and an internal loopback port without frame checks stood behind it. The node now listens on
   * its API port and its bridge port only, the bridge on the configured address.
   */
  @Test
  void theNodeListensOnItsApiAndBridgePortsOnlyAndTheBridgeOnTheConfiguredHost() throws Exception {
    AxProcess node = cluster.nodes.get(0);

    Map<Integer, String> listening = ListeningSockets.of(node.pid());

    assertEquals(java.util.Set.of(node.port, bridge), listening.keySet(), listening::toString);
    assertEquals("127.0.0.1", listening.get(bridge), "AX_BRIDGE_HOST=127.0.0.1");
  }

  @Test
  void aFrameWithoutATokenIsRefusedAndTheConnectionClosed() throws Exception {
    try (BridgeClient c = new BridgeClient(bridge)) {
      c.send(register("ex-1", null));
      JsonObject err = c.read();
      boolean closed = c.closedByServer();
      FaultRow.record("bridge-auth", Map.of("unauthorised_delivered", err != null && "err".equals(err.getString("type")) ? 0 : 1,
              "connection_closed", closed ? 1 : 0),
          "a register frame without a token on a raw TCP connection: err, connection closed");
      assertNotNull(err);
      assertEquals("err", err.getString("type"), err.encode());
      assertTrue(closed);
    }
  }

  @Test
  void aForgedTokenIsRefused() throws Exception {
    String real = AxCluster.token("ex-1");
    String[] parts = real.split("\\.");
    String forged = parts[0] + "." + parts[1] + "." + "AAAA" + parts[2].substring(4);
    try (BridgeClient c = new BridgeClient(bridge)) {
      c.send(register("ex-1", forged));
      JsonObject answer = c.read();
      boolean closed = c.closedByServer();
      FaultRow.record("bridge-auth", Map.of("unauthorised_delivered", answer != null && "err".equals(answer.getString("type")) ? 0 : 1,
              "connection_closed", closed ? 1 : 0),
          "a register frame with a token whose signature was changed: err, connection closed");
      assertEquals("err", answer.getString("type"));
      assertTrue(closed);
    }
  }

  @Test
  void pingNeedsNoTokenAndBrokenFramesDoNotWedgeTheConnection() throws Exception {
    try (BridgeClient c = new BridgeClient(bridge)) {
      c.sendRaw("{not json".getBytes(StandardCharsets.UTF_8));
      assertEquals("invalid_json", c.read().getString("message"));
      c.send(new JsonObject().put("type", "bogus"));
      assertEquals("unknown_type", c.read().getString("message"));
      c.send(new JsonObject().put("type", "ping"));
      assertEquals("pong", c.read().getString("type"), "the connection still works after broken frames");
    }
  }

  @Test
  void anOversizedFrameIsRefusedWithoutBeingBuffered() throws Exception {
    try (BridgeClient c = new BridgeClient(bridge)) {
      c.sendLengthOnly(512 * 1024 * 1024);
      JsonObject err = c.read();
      assertEquals("frame_too_large", err.getString("message"));
      assertTrue(c.closedByServer());
    }
  }

  @Test
  void anAuthenticatedExecutorRegistersButCannotSubscribeToAnotherInbox() throws Exception {
    try (BridgeClient c = new BridgeClient(bridge)) {
      c.send(register("ex-7", AxCluster.token("ex-7")));
      JsonObject reply = c.read();
      assertEquals("message", reply.getString("type"), reply.encode());
      assertEquals("ax.exec.inbox.ex-7", reply.getJsonObject("body").getString("inbox"));
      c.send(new JsonObject().put("type", "register").put("address", "ax.exec.inbox.ex-8"));
      JsonObject answer = c.read();
      FaultRow.record("bridge-auth", Map.of("unauthorised_delivered", answer != null && "err".equals(answer.getString("type")) ? 0 : 1),
          "an authenticated executor subscribing to another executor's inbox: err");
      assertEquals("err", answer.getString("type"), "another executor's inbox is refused");
      c.send(new JsonObject().put("type", "ping"));
      assertEquals("pong", c.read().getString("type"));
    }
  }

  /**
   * Finding 6 of the review: a malformed message from an authenticated executor once got no answer and
   * an unhandled exception on the leader. Every one below must be answered — an err frame at its reply
   * address with failureCode 400, or (for a batch whose items are broken) a refusal by id — and the node
   * must log nothing SEVERE.
   */
  @Test
  void everyMalformedExecutorMessageIsAnsweredAndTheNodeLogsNoSevere() throws Exception {
    Object[][] cases = {
        {"ax.exec.register", "x"},
        {"ax.exec.register", new JsonArray()},
        {"ax.exec.register", null},
        {"ax.exec.register", new JsonObject().put("executor_id", "ex-m")},
        {"ax.exec.register", new JsonObject().put("executor_id", "ex-m").put("processors", "echo")},
        {"ax.exec.register", new JsonObject().put("executor_id", "ex-m").put("processors", new JsonArray().add(7))},
        {"ax.exec.register", new JsonObject().put("executor_id", "ex-m").put("processors", new JsonArray().add("echo"))
            .put("capacity", new JsonObject().put("high", -1))},
        {"ax.exec.register", new JsonObject().put("executor_id", "ex-m").put("processors", new JsonArray().add("echo"))
            .put("buffer", 1e12)},
        {"ax.exec.heartbeat", 7},
        {"ax.exec.heartbeat", new JsonObject().put("free_threads", -1)},
        {"ax.exec.heartbeat", new JsonObject().put("backlog", "many")},
        {"ax.exec.result", null},
        {"ax.exec.result", "x"},
        {"ax.exec.result", new JsonObject().put("results", "x")},
        {"ax.exec.result", new JsonObject().put("results", new JsonObject())},
        {"ax.exec.result", new JsonObject().put("results", new JsonArray().add(1))},
        {"ax.exec.result", new JsonObject().put("results", new JsonArray().add(new JsonObject()
            .put("task_id", "not-a-number").put("attempt", 1).put("status", "SUCCESS")))},
        {"ax.exec.result", new JsonObject().put("results", new JsonArray().add(new JsonObject()
            .put("task_id", "1").put("attempt", 0).put("status", "MAYBE")))},
        {"ax.exec.drain", "x"},
        {"ax.exec.drain", new JsonArray().add(1)},
    };
    try (BridgeClient c = new BridgeClient(bridge)) {
      c.send(register("ex-m", AxCluster.token("ex-m")).put("body", new JsonObject().put("executor_id", "ex-m")
          .put("processors", new JsonArray().add("echo"))));
      assertEquals("message", c.read().getString("type"));
      for (int i = 0; i < cases.length; i++) {
        String replyAddress = "m" + i;
        c.send(new JsonObject().put("type", "send").put("address", cases[i][0]).put("replyAddress", replyAddress)
            .put("body", cases[i][1]));
        JsonObject answer = c.read();
        String what = cases[i][0] + " " + cases[i][1] + " -> " + answer;
        assertNotNull(answer, what);
        assertEquals(replyAddress, answer.getString("address"), what);
        if ("err".equals(answer.getString("type"))) {
          assertEquals(400, answer.getInteger("failureCode"), what);
        } else {
          assertEquals(new JsonArray(), answer.getJsonObject("body").getJsonArray("applied"), what);
          assertEquals(1, answer.getJsonObject("body").getJsonArray("refused").size(), what);
        }
      }
      c.send(new JsonObject().put("type", "ping"));
      assertEquals("pong", c.read().getString("type"), "the connection is still served");
    }
    String log = cluster.nodes.get(0).output();
    assertFalse(log.contains("SEVERE"), () -> "the node logged SEVERE:\n" + log);
  }

  @Test
  void anExecutorCannotRegisterUnderAnotherId() throws Exception {
    try (BridgeClient c = new BridgeClient(bridge)) {
      c.send(register("someone-else", AxCluster.token("ex-9")));
      JsonObject reply = c.read();
      FaultRow.record("bridge-auth", Map.of("unauthorised_delivered", reply != null && "err".equals(reply.getString("type")) ? 0 : 1),
          "an executor registering under another executor's id: err 403");
      assertEquals("err", reply.getString("type"), reply.encode());
      assertEquals(403, reply.getInteger("failureCode"));
    }
  }
}
