package ax.verticles;

import ax.bridge.BridgeLimits;
import ax.bridge.ExecutorTokens;
import ax.metrics.AxMetrics;
import ax.protocol.ExecutorAddresses;
import ax.testing.RawBridgeClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ConnectException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bridge served in-process by a real BridgeVerticle on a real socket, with stand-in consumers for
 * the leader: what an executor sees on the wire, the deadlines and the limits of one node.
 */
class BridgeVerticleTest {
  private static final String SECRET = "bridge-verticle-test-secret-0123456789";

  private final Vertx vertx = Vertx.vertx();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final BlockingQueue<Message<Object>> registers = new LinkedBlockingQueue<>();
  private int port;

  @AfterEach
  void close() throws Exception {
    vertx.close().await(5, TimeUnit.SECONDS);
  }

  private void start(String host, BridgeLimits limits) throws Exception {
    vertx.eventBus().<Object>consumer(ExecutorAddresses.REGISTER, m -> {
      registers.add(m);
      m.reply(new JsonObject().put("executor_id", m.headers().get("executor_id")).put("session", "s-1")
          .put("inbox", ExecutorAddresses.inbox(m.headers().get("executor_id"))));
    });
    vertx.eventBus().<Object>consumer(ExecutorAddresses.HEARTBEAT, m -> m.fail(410, "unknown session"));
    BridgeVerticle bridge = new BridgeVerticle(new BridgeVerticle.Settings(host, 0, limits),
        ExecutorTokens.verifier(vertx, SECRET), new AxMetrics(meters));
    vertx.deployVerticle(bridge).await(5, TimeUnit.SECONDS);
    port = bridge.actualPort();
  }

  private void start() throws Exception {
    start("127.0.0.1", BridgeLimits.defaults(5_000));
  }

  private static BridgeLimits limits(long authMs, long idleMs, int maxUnauthenticated, long bufferBytes) {
    return new BridgeLimits(1 << 20, authMs, idleMs, maxUnauthenticated, bufferBytes, BridgeLimits.FORWARD_TIMEOUT_MS);
  }

  private String token(String executorId) {
    return ExecutorTokens.mint(vertx, SECRET, executorId, 600);
  }

  private static JsonObject register(String token) {
    return new JsonObject().put("type", "send").put("address", ExecutorAddresses.REGISTER).put("replyAddress", "r1")
        .put("headers", new JsonObject().put("token", token)).put("body", new JsonObject().put("executor_id", "ex-1"));
  }

  private RawBridgeClient authenticated(String executorId) throws IOException {
    RawBridgeClient c = new RawBridgeClient(port);
    c.send(register(token(executorId)));
    JsonObject answer = c.read();
    assertEquals("message", answer.getString("type"), answer.encode());
    return c;
  }

  private double refused(String reason) {
    var counter = meters.find("ax_bridge_refused_total").tag("reason", reason).counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void theBridgeListensOnlyOnTheConfiguredInterface() throws Exception {
    start("127.0.0.1", BridgeLimits.defaults(5_000));

    try (RawBridgeClient c = new RawBridgeClient("127.0.0.1", port, 2_000)) {
      c.send(new JsonObject().put("type", "ping"));
      assertEquals("pong", c.read().getString("type"));
    }
    // 127.0.0.2 reaches this host too; a socket bound to every interface would answer there.
    assertThrows(ConnectException.class, () -> new RawBridgeClient("127.0.0.2", port, 2_000).close());
  }

  @Test
  void aRegisterIsAnsweredAtItsReplyAddressAndStampedWithTheTokensSubject() throws Exception {
    start();
    try (RawBridgeClient c = new RawBridgeClient(port)) {
      c.send(register(token("ex-1")).put("headers", new JsonObject().put("token", token("ex-1"))
          .put("executor_id", "forged")));

      JsonObject answer = c.read();
      assertEquals("message", answer.getString("type"));
      assertEquals("r1", answer.getString("address"));
      assertEquals("s-1", answer.getJsonObject("body").getString("session"));
      Message<Object> seen = registers.poll(5, TimeUnit.SECONDS);
      assertEquals("ex-1", seen.headers().get("executor_id"));
      assertNull(seen.headers().get("token"), "the token does not travel on");
    }
  }

  @Test
  void aFailedRequestComesBackAsAnErrFrameAtTheReplyAddress() throws Exception {
    start();
    try (RawBridgeClient c = authenticated("ex-1")) {
      c.send(new JsonObject().put("type", "send").put("address", ExecutorAddresses.HEARTBEAT).put("replyAddress", "h1")
          .put("body", new JsonObject()));

      JsonObject err = c.read();
      assertEquals("err", err.getString("type"));
      assertEquals("h1", err.getString("address"));
      assertEquals(410, err.getInteger("failureCode"));
      assertEquals("RECIPIENT_FAILURE", err.getString("failureType"));
      assertEquals(ExecutorAddresses.HEARTBEAT, err.getString("sourceAddress"));
    }
  }

  /**
   * A request the event bus never answers (routed to a node killed a moment ago) comes back as a TIMEOUT
   * err frame after the forward timeout, not the event bus's 30 s: the executor re-sends sooner.
   */
  @Test
  void aRequestNobodyAnswersIsToldTimeoutAfterTheForwardTimeout() throws Exception {
    start("127.0.0.1", new BridgeLimits(1 << 20, 10_000, 30_000, 16, 16L << 20, 300));
    vertx.eventBus().<Object>consumer(ExecutorAddresses.RESULT, m -> { }); // swallowed, like by a dead node
    try (RawBridgeClient c = authenticated("ex-1")) {
      long sent = System.nanoTime();
      c.send(new JsonObject().put("type", "send").put("address", ExecutorAddresses.RESULT).put("replyAddress", "res1")
          .put("body", new JsonObject()));

      JsonObject err = c.read();
      long waitedMs = (System.nanoTime() - sent) / 1_000_000;
      assertEquals("err", err.getString("type"), err.encode());
      assertEquals("res1", err.getString("address"));
      assertEquals("TIMEOUT", err.getString("failureType"));
      assertTrue(waitedMs >= 250 && waitedMs < 10_000, "told after " + waitedMs + " ms");
    }
  }

  @Test
  void aDispatchToTheInboxReachesTheSubscribedExecutorAndItsAnswerOrFailureGoesBack() throws Exception {
    start();
    try (RawBridgeClient c = authenticated("ex-1")) {
      c.send(new JsonObject().put("type", "register").put("address", "ax.exec.inbox.ex-1"));
      c.send(new JsonObject().put("type", "ping"));
      assertEquals("pong", c.read().getString("type"), "the subscription is in place before the pong");

      CompletableFuture<Object> acked = request("ax.exec.inbox.ex-1", new JsonObject().put("epoch", 7));
      JsonObject dispatch = c.read();
      assertEquals("message", dispatch.getString("type"));
      assertEquals(7, dispatch.getJsonObject("body").getInteger("epoch"));
      c.send(new JsonObject().put("type", "send").put("address", dispatch.getString("replyAddress"))
          .put("body", new JsonObject().put("accepted", "all")));
      assertEquals(new JsonObject().put("accepted", "all"), acked.get(5, TimeUnit.SECONDS));

      CompletableFuture<Object> refused = request("ax.exec.inbox.ex-1", new JsonObject());
      String replyAddress = c.read().getString("replyAddress");
      c.send(new JsonObject().put("type", "send").put("address", replyAddress).put("failureCode", 418)
          .put("message", "no"));
      Exception e = assertThrows(Exception.class, () -> refused.get(5, TimeUnit.SECONDS));
      assertEquals(418, ((ReplyException) e.getCause()).failureCode());
    }
  }

  @Test
  void aClosedConnectionTakesItsInboxSubscriptionWithIt() throws Exception {
    start();
    try (RawBridgeClient c = authenticated("ex-1")) {
      c.send(new JsonObject().put("type", "register").put("address", "ax.exec.inbox.ex-1"));
      c.send(new JsonObject().put("type", "ping"));
      c.read();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    ReplyException last = null;
    while (System.nanoTime() < deadline) {
      try {
        request("ax.exec.inbox.ex-1", new JsonObject()).get(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        last = (ReplyException) e.getCause();
        if (last.failureType().name().equals("NO_HANDLERS")) {
          return;
        }
      }
    }
    throw new AssertionError("the inbox consumer outlived its connection: " + last);
  }

  @Test
  void aConnectionThatDoesNotAuthenticateInTimeIsToldAndClosed() throws Exception {
    start("127.0.0.1", limits(300, 60_000, 16, 1 << 20));
    try (RawBridgeClient c = new RawBridgeClient(port)) {
      c.send(new JsonObject().put("type", "ping"));
      assertEquals("pong", c.read().getString("type"));

      assertEquals("auth_timeout", c.read().getString("message"));
      assertNull(c.read(), "closed");
    }
    assertEquals(1, refused("auth_timeout"));
  }

  @Test
  void anAuthenticatedConnectionThatGoesQuietIsToldAndClosed() throws Exception {
    start("127.0.0.1", limits(60_000, 300, 16, 1 << 20));
    try (RawBridgeClient c = authenticated("ex-1")) {
      assertEquals("idle_timeout", c.read().getString("message"));
      assertNull(c.read(), "closed");
    }
  }

  @Test
  void beyondTheUnauthenticatedConnectionCapNewConnectionsAreTurnedAway() throws Exception {
    start("127.0.0.1", limits(60_000, 60_000, 2, 1 << 20));
    try (RawBridgeClient a = new RawBridgeClient(port); RawBridgeClient b = new RawBridgeClient(port);
         RawBridgeClient third = new RawBridgeClient(port)) {
      assertEquals("busy", third.read().getString("message"));
      assertNull(third.read());

      a.send(register(token("ex-1")));
      assertEquals("message", a.read().getString("type"));
      try (RawBridgeClient fourth = new RawBridgeClient(port)) {
        fourth.send(new JsonObject().put("type", "ping"));
        assertEquals("pong", fourth.read().getString("type"), "an authenticated connection frees its place");
      }
      b.send(new JsonObject().put("type", "ping"));
      assertEquals("pong", b.read().getString("type"));
    }
    assertEquals(1, refused("too_many_connections"));
  }

  @Test
  void partialFramesOfUnauthenticatedConnectionsShareOneBudget() throws Exception {
    start("127.0.0.1", limits(60_000, 60_000, 16, 256 * 1024));
    try (RawBridgeClient a = new RawBridgeClient(port); RawBridgeClient b = new RawBridgeClient(port)) {
      a.sendLengthOnly(200_000);
      a.sendBytes(new byte[150_000]);
      awaitBuffered(150_000); // a's body array has grown to its declared 200 000 bytes
      b.sendLengthOnly(200_000);
      b.sendBytes(new byte[60_000]);
      // Each holds its array less its unbudgeted 8 KiB: a its declared 200 000 bytes, b a 64 KiB array.
      awaitBuffered(200_000 + 64 * 1024 - 2 * BridgeLimits.UNBUDGETED_BYTES_PER_CONNECTION); // 249 152
      // A write that fits the socket's buffers at once: b is refused only after all of it was written,
      // so the client never writes into a connection the node has already closed (a broken pipe).
      b.sendBytes(new byte[10_000]); // b's array doubles to 128 KiB, over 256 KiB together

      assertEquals("busy", b.read().getString("message"), "together they would hold more than 256 KiB");
      assertNull(b.read());
      try (RawBridgeClient ordinary = new RawBridgeClient(port)) {
        ordinary.send(register(token("ex-1")));
        assertEquals("message", ordinary.read().getString("type"),
            "a register of ordinary size is not turned away while the budget is spent");
      }
      a.sendBytes(new byte[50_000]);
      assertEquals("invalid_json", a.read().getString("message"), "the first one is served as usual");
    }
  }

  /** Waits until the node reports at least {@code bytes} held by unauthenticated connections. */
  private void awaitBuffered(long bytes) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (meters.find("ax_bridge_unauthenticated_buffered_bytes").gauge().value() < bytes) {
      assertTrue(System.nanoTime() < deadline, "the node never held " + bytes + " bytes");
      Thread.sleep(5);
    }
  }

  @Test
  void beforeAuthenticationAFrameOverTheRegisterSizedLimitIsRefused() throws Exception {
    start();
    try (RawBridgeClient c = new RawBridgeClient(port)) {
      c.sendLengthOnly(BridgeLimits.PRE_AUTH_MAX_FRAME_BYTES + 1);
      assertEquals("frame_too_large", c.read().getString("message"));
      assertNull(c.read());
    }
    try (RawBridgeClient c = authenticated("ex-1")) {
      c.sendLengthOnly(BridgeLimits.PRE_AUTH_MAX_FRAME_BYTES + 1);
      c.sendBytes(new byte[BridgeLimits.PRE_AUTH_MAX_FRAME_BYTES + 1]);
      assertEquals("invalid_json", c.read().getString("message"), "after authentication the full limit applies");
    }
  }

  @Test
  void aClientThatPipelinesFramesBehindItsRegisterIsServedInOrder() throws Exception {
    start();
    try (RawBridgeClient c = new RawBridgeClient(port)) {
      c.send(register(token("ex-1")));
      c.send(new JsonObject().put("type", "register").put("address", "ax.exec.inbox.ex-1"));
      c.send(new JsonObject().put("type", "ping"));

      // The register's answer comes from the leader, the pong from the bridge: either may be first.
      assertEquals(java.util.Set.of("message", "pong"), java.util.Set.of(c.read().getString("type"),
          c.read().getString("type")), "the subscribe in between was accepted silently");
    }
  }

  private CompletableFuture<Object> request(String address, JsonObject body) {
    return vertx.eventBus().request(address, body, new DeliveryOptions().setSendTimeout(3_000))
        .map(Message::body).toCompletionStage().toCompletableFuture();
  }

  @Test
  void gaugesCountConnectionsByState() throws Exception {
    start();
    try (RawBridgeClient anonymous = new RawBridgeClient(port); RawBridgeClient known = authenticated("ex-1")) {
      anonymous.send(new JsonObject().put("type", "ping"));
      anonymous.read();
      assertEquals(1.0, meters.find("ax_bridge_connections").tag("state", "unauthenticated").gauge().value());
      assertEquals(1.0, meters.find("ax_bridge_connections").tag("state", "authenticated").gauge().value());
      assertNotNull(meters.find("ax_bridge_unauthenticated_buffered_bytes").gauge());
    }
  }
}
