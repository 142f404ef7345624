package ax.bridge;

import ax.bus.Addresses;
import ax.metrics.AxMetrics;
import ax.protocol.ExecutorAddresses;
import ax.testing.RawBridgeClient;
import ax.verticles.BridgeVerticle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.jwt.JWTAuth;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.lifecycle.LifecycleContext;
import net.jqwik.api.lifecycle.SkipExecutionHook;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Generated executor traffic thrown at a real bridge (a BridgeVerticle on a real socket, stand-in
 * consumers on every executor address and on addresses an executor must never reach): lengths from 0 to
 * 2^32-1, frames cut short, invalid UTF-8, duplicate keys, wrong JSON types, unknown frame types, floods
 * of small frames, registers with forged, expired, never-expiring or foreign tokens, sends to forbidden
 * addresses, before and after authentication. For every script:
 * <ul>
 *   <li>the server answers exactly what the protocol says (a small oracle below): each refusal is an
 *       {@code err} frame, and a refusal that ends the connection is followed by the close (answers
 *       to requests still on their way at that moment may be lost with it);</li>
 *   <li>a connection the oracle keeps open still answers a ping, and a fresh connection always does:
 *       nothing wedges the parser or the node;</li>
 *   <li>nothing reaches an executor address unless a valid token authenticated the connection, and then
 *       only stamped with that token's subject; nothing ever reaches a forbidden address.</li>
 * </ul>
 * CI runs {@value #CI_TRIES} scripts (a few seconds). A long run on demand:
 * {@code mvn -B test -Dtest=BridgeFramesPropertiesTest -Dax.bridge.fuzz=long -Djqwik.tries.default=20000}.
 */
class BridgeFramesPropertiesTest {
  static final int CI_TRIES = 400;
  private static final String SECRET = "bridge-fuzz-secret-0123456789abcdef012345";
  private static final List<String> INBOUND = ExecutorAddresses.INBOUND;
  private static final List<String> FORBIDDEN = List.of(Addresses.EXEC_READY, Addresses.SYNC_AWAIT,
      Addresses.WHEEL_SCHEDULE, "ax.exec.inbox.victim", "ax.exec.registerx", "__vertx.reply.x");
  private static final String MARKER = "marker";

  private static Vertx vertx;
  private static JWTAuth signer;
  private static SimpleMeterRegistry meters;
  private static int port;
  /** (address, executor_id header) of every message the stand-in consumers received. */
  private static final ConcurrentLinkedQueue<String[]> received = new ConcurrentLinkedQueue<>();
  private static final AtomicInteger tries = new AtomicInteger();

  @BeforeContainer
  static void startBridge() throws Exception {
    vertx = Vertx.vertx();
    meters = new SimpleMeterRegistry();
    signer = ExecutorTokens.verifier(vertx, SECRET);
    for (String address : concat(INBOUND, FORBIDDEN)) {
      vertx.eventBus().<Object>consumer(address, m -> {
        if (!MARKER.equals(m.body())) {
          received.add(new String[] {address, m.headers().get(ExecutorAddresses.EXECUTOR_HEADER)});
        }
        m.reply(new JsonObject().put("ok", true));
      }).completion().await(5, TimeUnit.SECONDS);
    }
    BridgeVerticle bridge = new BridgeVerticle(new BridgeVerticle.Settings("127.0.0.1", 0, BridgeLimits.defaults(5_000)),
        signer, new AxMetrics(meters));
    vertx.deployVerticle(bridge).await(5, TimeUnit.SECONDS);
    port = bridge.actualPort();
  }

  @AfterContainer
  static void stopBridge() throws Exception {
    vertx.close().await(5, TimeUnit.SECONDS);
  }

  @Property(tries = CI_TRIES)
  void noGeneratedTrafficWedgesTheBridgeOrGetsPastItsChecks(@ForAll("scripts") List<Step> script) throws Exception {
    runScript(script);
  }

  /** The same property for as many tries as {@code jqwik.tries.default} says; only with -Dax.bridge.fuzz=long. */
  @Property
  @AddLifecycleHook(LongRunOnly.class)
  void noGeneratedTrafficWedgesTheBridgeOrGetsPastItsChecksInALongRun(@ForAll("scripts") List<Step> script)
      throws Exception {
    runScript(script);
  }

  /** Skips the long run unless asked for. */
  static final class LongRunOnly implements SkipExecutionHook {
    @Override
    public SkipResult shouldBeSkipped(LifecycleContext context) {
      return "long".equals(System.getProperty("ax.bridge.fuzz")) ? SkipResult.doNotSkip()
          : SkipResult.skip("a long run only with -Dax.bridge.fuzz=long");
    }
  }

  private void runScript(List<Step> script) throws Exception {
    String executorId = "fz-" + tries.incrementAndGet();
    awaitNoConnections(); // a failed try may have left traffic behind; none of it counts for this one
    flushConsumers();
    received.clear();
    Oracle oracle = new Oracle();
    try (RawBridgeClient c = new RawBridgeClient("127.0.0.1", port, 5_000)) {
      ByteArrayOutputStream wire = new ByteArrayOutputStream();
      for (Step step : script) {
        if (oracle.stopped()) {
          break;
        }
        wire.write(step.bytes(executorId, oracle.limit()));
        oracle.apply(step);
      }
      writeQuietly(c, wire.toByteArray());
      List<String> expected = new ArrayList<>(oracle.expected);
      List<String> got = new ArrayList<>();
      if (oracle.closed) {
        for (JsonObject f = readQuietly(c); f != null; f = readQuietly(c)) {
          got.add(category(f));
        }
      } else if (oracle.truncated) {
        for (int i = 0; i < expected.size(); i++) {
          got.add(category(c.read()));
        }
      } else {
        c.send(new JsonObject().put("type", "ping"));
        expected.add("pong");
        while (got.size() < expected.size()) {
          JsonObject f = c.read();
          assertNotNull(f, () -> "closed early; got " + got + ", expected " + oracle.expected + " for " + script);
          got.add(category(f));
        }
      }
      if (oracle.closed) {
        // Answers to requests still on their way when the server closed cannot be sent any more.
        List<String> answers = new ArrayList<>(expected);
        for (String g : got) {
          assertTrue(!g.startsWith("msg:") || answers.remove(g), () -> "unexpected " + g + " for " + script);
        }
        expected.removeIf(e -> e.startsWith("msg:"));
        got.removeIf(g -> g.startsWith("msg:"));
      }
      Collections.sort(expected);
      Collections.sort(got);
      assertEquals(expected, got, () -> "for " + script);
    }
    awaitNoConnections();
    flushConsumers();
    for (String[] r : received) {
      assertTrue(!FORBIDDEN.contains(r[0]), () -> "reached forbidden " + r[0] + " in " + script);
      assertTrue(oracle.authenticated, () -> "reached " + r[0] + " without a valid token in " + script);
      assertEquals(executorId, r[1], () -> "not stamped with the token's subject in " + script);
    }
    try (RawBridgeClient fresh = new RawBridgeClient("127.0.0.1", port, 5_000)) {
      fresh.send(new JsonObject().put("type", "ping"));
      assertEquals("pong", fresh.read().getString("type"), "a fresh connection is served");
    }
  }

  // ---- the generated steps ------------------------------------------------------------------------

  enum Token { VALID, FORGED, EXPIRED, NO_EXP, TEN_YEARS, OTHER_AUDIENCE, BAD_SUBJECT, NOT_A_JWT, EMPTY, NONE }

  enum Kind {
    PING, GARBAGE, REGISTER, REQUEST, SEND_NO_REPLY, FORBIDDEN_SEND, FORBIDDEN_PUBLISH, SUBSCRIBE_OWN,
    SUBSCRIBE_OTHER, UNSUBSCRIBE_OWN, FLOOD, OVERSIZE, TRUNCATED
  }

  /** One thing the client does; {@code n} and {@code text} parameterise it. */
  record Step(Kind kind, Token token, int n, String text) {
    byte[] bytes(String executorId, int limit) {
      String reply = "r" + Math.abs(n);
      return switch (kind) {
        case PING -> frame(new JsonObject().put("type", "ping"));
        case GARBAGE -> frame(Garbage.of(n, text));
        case REGISTER -> {
          JsonObject headers = new JsonObject();
          if (token != Token.NONE) {
            headers.put(ExecutorAddresses.TOKEN_HEADER, tokenFor(token, executorId));
          }
          yield frame(request(ExecutorAddresses.REGISTER, reply).put("headers", headers));
        }
        case REQUEST -> frame(request(INBOUND.get(Math.floorMod(n, INBOUND.size())), reply));
        case SEND_NO_REPLY -> frame(request(INBOUND.get(Math.floorMod(n, INBOUND.size())), null));
        case FORBIDDEN_SEND -> frame(request(FORBIDDEN.get(Math.floorMod(n, FORBIDDEN.size())), n % 2 == 0 ? reply : null));
        case FORBIDDEN_PUBLISH -> frame(request(FORBIDDEN.get(Math.floorMod(n, FORBIDDEN.size())), null)
            .put("type", "publish"));
        case SUBSCRIBE_OWN -> frame(new JsonObject().put("type", "register")
            .put("address", ExecutorAddresses.inbox(executorId)));
        case SUBSCRIBE_OTHER -> frame(new JsonObject().put("type", n % 2 == 0 ? "register" : "unregister")
            .put("address", n % 3 == 0 ? "ax.exec.inbox.victim" : FORBIDDEN.get(Math.floorMod(n, FORBIDDEN.size()))));
        case UNSUBSCRIBE_OWN -> frame(new JsonObject().put("type", "unregister")
            .put("address", ExecutorAddresses.inbox(executorId)));
        case FLOOD -> {
          byte[] ping = frame(new JsonObject().put("type", "ping"));
          ByteBuffer b = ByteBuffer.allocate(ping.length * floodSize());
          for (int i = 0; i < floodSize(); i++) {
            b.put(ping);
          }
          yield b.array();
        }
        case OVERSIZE -> ByteBuffer.allocate(4).putInt((int) oversize(limit)).array();
        case TRUNCATED -> {
          int declared = 1 + Math.floorMod(n, limit);
          int sent = Math.min(Math.floorMod(n * 31, declared), 300_000);
          yield ByteBuffer.allocate(4 + sent).putInt(declared).array();
        }
      };
    }

    int floodSize() {
      return 1 + Math.floorMod(n, 300);
    }

    /** A declared length over the limit, anywhere up to 2^32 - 1. */
    long oversize(int limit) {
      long span = 0xFFFF_FFFFL - limit;
      return limit + 1 + Math.floorMod((long) n * 2_654_435_761L, span);
    }

    private JsonObject request(String address, String replyAddress) {
      JsonObject f = new JsonObject().put("type", "send").put("address", address)
          .put("body", new JsonObject().put("executor_id", "someone").put("text", text).put("n", n))
          .put("headers", new JsonObject().put(ExecutorAddresses.EXECUTOR_HEADER, "forged-id"));
      return replyAddress == null ? f : f.put("replyAddress", replyAddress);
    }
  }

  @Provide
  Arbitrary<List<Step>> scripts() {
    Arbitrary<Kind> kinds = Arbitraries.frequencyOf(
        Tuple.of(6, Arbitraries.just(Kind.PING)), Tuple.of(12, Arbitraries.just(Kind.GARBAGE)),
        Tuple.of(8, Arbitraries.just(Kind.REGISTER)), Tuple.of(6, Arbitraries.just(Kind.REQUEST)),
        Tuple.of(2, Arbitraries.just(Kind.SEND_NO_REPLY)), Tuple.of(4, Arbitraries.just(Kind.FORBIDDEN_SEND)),
        Tuple.of(2, Arbitraries.just(Kind.FORBIDDEN_PUBLISH)), Tuple.of(3, Arbitraries.just(Kind.SUBSCRIBE_OWN)),
        Tuple.of(3, Arbitraries.just(Kind.SUBSCRIBE_OTHER)), Tuple.of(2, Arbitraries.just(Kind.UNSUBSCRIBE_OWN)),
        Tuple.of(2, Arbitraries.just(Kind.FLOOD)), Tuple.of(1, Arbitraries.just(Kind.OVERSIZE)),
        Tuple.of(1, Arbitraries.just(Kind.TRUNCATED)));
    Arbitrary<Token> tokens = Arbitraries.frequencyOf(Tuple.of(5, Arbitraries.just(Token.VALID)),
        Tuple.of(5, Arbitraries.of(Token.values())));
    Arbitrary<String> text = Arbitraries.strings().alpha().numeric().ofMaxLength(24);
    Arbitrary<Step> step = Combinators.combine(kinds, tokens, Arbitraries.integers(), text).as(Step::new);
    return step.list().ofMinSize(1).ofMaxSize(14);
  }

  // ---- what the server must answer ----------------------------------------------------------------

  /** The protocol, small: what each step makes the server send, and whether it closes. */
  static final class Oracle {
    final List<String> expected = new ArrayList<>();
    boolean authenticated;
    boolean subscribed;
    boolean closed;
    boolean truncated;

    boolean stopped() {
      return closed || truncated;
    }

    int limit() {
      return authenticated ? BridgeLimits.DEFAULT_MAX_FRAME_BYTES : BridgeLimits.PRE_AUTH_MAX_FRAME_BYTES;
    }

    void apply(Step s) {
      String reply = "msg:r" + Math.abs(s.n());
      switch (s.kind()) {
        case PING -> expected.add("pong");
        case FLOOD -> {
          for (int i = 0; i < s.floodSize(); i++) {
            expected.add("pong");
          }
        }
        case GARBAGE -> expected.add("err:parse");
        case OVERSIZE -> close("err:frame_too_large");
        case TRUNCATED -> truncated = true;
        case REGISTER -> {
          if (authenticated) {
            expected.add(reply); // a request like any other, stamped with the connection's subject
          } else if (s.token() == Token.VALID) {
            authenticated = true;
            expected.add(reply);
          } else {
            close("err:blocked");
          }
        }
        default -> {
          if (!authenticated) {
            close("err:blocked");
            return;
          }
          switch (s.kind()) {
            case REQUEST -> expected.add(reply);
            case SEND_NO_REPLY -> { }
            case FORBIDDEN_SEND, FORBIDDEN_PUBLISH -> expected.add("err:access_denied");
            case SUBSCRIBE_OTHER -> expected.add("err:blocked");
            case SUBSCRIBE_OWN -> {
              if (subscribed) {
                expected.add("err:blocked");
              }
              subscribed = true;
            }
            case UNSUBSCRIBE_OWN -> {
              if (!subscribed) {
                expected.add("err:unknown_address");
              }
              subscribed = false;
            }
            default -> throw new IllegalStateException(s.kind().name());
          }
        }
      }
    }

    private void close(String why) {
      expected.add(why);
      closed = true;
    }
  }

  /** What a server frame is, for comparing with the oracle. */
  private static String category(JsonObject f) {
    assertNotNull(f, "a frame was expected");
    String type = f.getString("type");
    if ("pong".equals(type)) {
      return "pong";
    }
    if ("message".equals(type)) {
      return "msg:" + f.getString("address");
    }
    assertEquals("err", type, f::encode);
    String message = f.getString("message");
    assertNotNull(message, f::encode);
    if (f.getString("address") != null) {
      return "err-answer:" + f.getString("address"); // a failed request; the stand-ins never fail
    }
    return switch (message) {
      case "invalid_json", "unknown_type", "invalid_headers", "missing_address", "invalid_reply_address",
           "invalid_body", "invalid_failure" -> "err:parse";
      case BridgeSession.BLOCKED -> "err:blocked";
      default -> "err:" + message;
    };
  }

  // ---- frames that must be refused as malformed ---------------------------------------------------

  /** Bodies that no reading of the protocol accepts; each is refused with an err and the connection stays. */
  static final class Garbage {
    static byte[] of(int n, String s) {
      String ok = "{\"type\":\"ping\",\"pad\":\"" + s + "\"}";
      return switch (Math.floorMod(n, 16)) {
        case 0 -> new byte[0];
        case 1 -> withBytes("{\"type\":\"ping\",\"x\":\"" + s, new byte[] {(byte) 0xFF}, "\"}");
        case 2 -> withBytes("{\"type\":\"ping\",\"x\":\"", new byte[] {(byte) 0xC0, (byte) 0xA2}, "\"}"); // overlong
        case 3 -> withBytes("{\"type\":\"ping\",\"x\":\"", new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, "\"}");
        case 4 -> utf8("{\"type\":\"ping\",\"a\":\"" + s + "\",\"type\":\"ping\"}");
        case 5 -> utf8("{\"type\":\"send\",\"address\":\"ax.exec.heartbeat\",\"headers\":{\"k\":\"" + s
            + "\",\"k\":\"v\"}}");
        case 6 -> utf8("{\"type\":\"x" + s + "\"}");
        case 7 -> utf8("[" + n + ",\"" + s + "\"]");
        case 8 -> utf8("{\"type\":\"send\",\"address\":\"ax.exec.heartbeat\",\"headers\":"
            + (n % 2 == 0 ? "[\"" + s + "\"]" : "{\"timeout\":" + n + "}") + "}");
        case 9 -> utf8(n % 2 == 0 ? "{\"type\":\"send\"}" : "{\"type\":\"publish\",\"address\":" + n + "}");
        case 10 -> utf8("{\"type\":\"send\",\"address\":\"ax.exec.heartbeat\",\"replyAddress\":" + n + "}");
        case 11 -> Arrays.copyOf(utf8(ok), Math.floorMod(n, ok.length())); // cut short
        case 12 -> utf8("{\"type\":\"send\",\"address\":\"a\",\"body\":" + "[".repeat(200) + "]".repeat(200) + "}");
        case 13 -> utf8("{\"type\":\"send\",\"address\":\"a\",\"body\":1" + "0".repeat(30) + "}");
        case 14 -> utf8(ok + " x" + s);
        default -> utf8("x" + s);
      };
    }

    private static byte[] utf8(String s) {
      return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] withBytes(String before, byte[] middle, String after) {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      b.writeBytes(utf8(before));
      b.writeBytes(middle);
      b.writeBytes(utf8(after));
      return b.toByteArray();
    }
  }

  // ---- helpers ------------------------------------------------------------------------------------

  private static String tokenFor(Token kind, String executorId) {
    long now = System.currentTimeMillis() / 1000;
    JWTOptions options = new JWTOptions().setAlgorithm("HS256").setIssuer(ExecutorTokens.ISSUER)
        .setAudience(List.of(ExecutorTokens.AUDIENCE));
    return switch (kind) {
      case VALID -> ExecutorTokens.mint(vertx, SECRET, executorId, 600);
      case FORGED -> {
        String[] p = ExecutorTokens.mint(vertx, SECRET, executorId, 600).split("\\.");
        yield p[0] + "." + p[1] + "." + (p[2].startsWith("A") ? "B" : "A") + p[2].substring(1);
      }
      case EXPIRED -> signer.generateToken(new JsonObject().put("sub", executorId).put("exp", now - 60), options);
      case NO_EXP -> signer.generateToken(new JsonObject().put("sub", executorId), options);
      case TEN_YEARS -> signer.generateToken(new JsonObject().put("sub", executorId).put("exp", now + 3_650 * 86_400L),
          options);
      case OTHER_AUDIENCE -> signer.generateToken(new JsonObject().put("sub", executorId),
          options.setAudience(List.of("ax-api")).setExpiresInSeconds(600));
      case BAD_SUBJECT -> signer.generateToken(new JsonObject().put("sub", "bad/" + executorId),
          options.setExpiresInSeconds(600));
      case NOT_A_JWT -> "not.a.jwt";
      case EMPTY, NONE -> "";
    };
  }

  private static byte[] frame(JsonObject message) {
    return frame(message.encode().getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] frame(byte[] body) {
    return ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).array();
  }

  /** The server may close mid-write (after a refusal); what it sent before is still read. */
  private static void writeQuietly(RawBridgeClient c, byte[] bytes) {
    try {
      c.sendBytes(bytes);
    } catch (IOException closedByServer) {
      // read below
    }
  }

  private static JsonObject readQuietly(RawBridgeClient c) throws IOException {
    try {
      return c.read();
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the server neither answered nor closed", e);
    } catch (IOException reset) {
      return null; // a reset after the close: the client wrote into a closed connection
    }
  }

  /** Every connection of the script is gone from the node: all it read was handled. */
  private static void awaitNoConnections() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (connections() > 0) {
      assertTrue(System.nanoTime() < deadline, "a connection outlived its socket");
      Thread.sleep(1);
    }
  }

  private static double connections() {
    return meters.find("ax_bridge_connections").gauges().stream().mapToDouble(g -> g.value()).sum();
  }

  /** A marker through each stand-in consumer: whatever the bridge sent them before has been recorded. */
  private static void flushConsumers() throws Exception {
    for (String address : concat(INBOUND, FORBIDDEN)) {
      vertx.eventBus().request(address, MARKER).await(5, TimeUnit.SECONDS);
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
