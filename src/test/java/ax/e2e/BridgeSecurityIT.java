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

  @Test
  void aFrameWithoutATokenIsRefusedAndTheConnectionClosed() throws Exception {
    try (BridgeClient c = new BridgeClient(bridge)) {
      c.send(register("ex-1", null));
      JsonObject err = c.read();
      assertNotNull(err);
      assertEquals("err", err.getString("type"), err.encode());
      assertTrue(c.closedByServer());
    }
  }

  @Test
  void aForgedTokenIsRefused() throws Exception {
    String real = AxCluster.token("ex-1");
    String[] parts = real.split("\\.");
    String forged = parts[0] + "." + parts[1] + "." + "AAAA" + parts[2].substring(4);
    try (BridgeClient c = new BridgeClient(bridge)) {
      c.send(register("ex-1", forged));
      assertEquals("err", c.read().getString("type"));
      assertTrue(c.closedByServer());
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
      assertEquals("err", c.read().getString("type"), "another executor's inbox is refused");
      c.send(new JsonObject().put("type", "ping"));
      assertEquals("pong", c.read().getString("type"));
    }
  }

  @Test
  void anExecutorCannotRegisterUnderAnotherId() throws Exception {
    try (BridgeClient c = new BridgeClient(bridge)) {
      c.send(register("someone-else", AxCluster.token("ex-9")));
      JsonObject reply = c.read();
      assertEquals("err", reply.getString("type"), reply.encode());
      assertEquals(403, reply.getInteger("failureCode"));
    }
  }
}
