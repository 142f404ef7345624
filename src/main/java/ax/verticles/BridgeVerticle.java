package ax.verticles;

import ax.bridge.BridgeConnection;
import ax.bridge.BridgeLimits;
import ax.bridge.BridgeSession;
import ax.bridge.UnauthenticatedBudget;
import ax.logging.LogThrottle;
import ax.metrics.AxMetrics;
import ax.protocol.ExecutorAddresses;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.ext.auth.jwt.JWTAuth;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Every node serves executors (ARCHITECTURE "Cluster") on one TCP port, bound to {@code AX_BRIDGE_HOST}.
 * The event-bus bridge protocol is handled here, in-process: each connection is a {@link BridgeConnection}
 * that checks every frame, authenticates the executor and stamps what it sends (see {@code BridgeSession})
 * before anything reaches the event bus. There is no second, internal bridge port: it would have been a
 * way around those checks for any local process. Through the clustered event bus an executor's messages
 * reach the leader whichever node it is connected to ({@link ExecutorAddresses}), and the leader's
 * dispatches reach the executor's inbox here.
 *
 * <p>This verticle owns the connections: it admits them against the node's {@link UnauthenticatedBudget}
 * and sweeps their deadlines (authentication, idle) a few times per timeout.
 */
public final class BridgeVerticle extends VerticleBase {
  private static final Logger LOG = Logger.getLogger(BridgeVerticle.class.getName());

  private final Settings settings;
  private final JWTAuth tokens;
  private final AxMetrics metrics;
  /** Monotonic milliseconds: deadlines must not move when the wall clock does. */
  private final LongSupplier clock = () -> System.nanoTime() / 1_000_000;
  private final Set<BridgeConnection> connections = new HashSet<>();
  /** Anyone can present a bad token; one log line per 10 s is enough, the counter has the rest. */
  private final LogThrottle tokenLog = new LogThrottle(10_000);
  private UnauthenticatedBudget budget;
  private NetServer server;
  private long sweeper = -1;

  /**
   * @param bindHost the interface the bridge listens on
   * @param port     the bridge port; 0 picks a free one
   * @param limits   what one connection may cost and for how long
   */
  public record Settings(String bindHost, int port, BridgeLimits limits) {
    public Settings {
      if (bindHost == null || port < 0 || port > 65_535 || limits == null) {
        throw new IllegalArgumentException("bridge settings out of range: " + bindHost + ":" + port);
      }
    }
  }

  public BridgeVerticle(Settings settings, JWTAuth tokens, AxMetrics metrics) {
    this.settings = settings;
    this.tokens = tokens;
    this.metrics = metrics;
  }

  @Override
  public Future<?> start() {
    BridgeLimits limits = settings.limits();
    budget = new UnauthenticatedBudget(limits.maxUnauthenticated(), limits.unauthenticatedBufferBytes());
    metrics.gaugeBridge(() -> budget.connections(), () -> connections.size() - budget.connections(),
        () -> budget.bytes());
    sweeper = vertx.setPeriodic(sweepIntervalMs(limits), id -> sweep());
    // listen(port) alone would bind every interface whatever the options say: give the host explicitly.
    return vertx.createNetServer(new NetServerOptions().setTcpNoDelay(true))
        .connectHandler(this::accept)
        .listen(settings.port(), settings.bindHost())
        .onSuccess(s -> {
          server = s;
          LOG.info("executor bridge on " + settings.bindHost() + ":" + s.actualPort());
        });
  }

  /** Deadlines are checked a few times per timeout, at most once a second. */
  static long sweepIntervalMs(BridgeLimits limits) {
    return Math.max(10, Math.min(1_000, Math.min(limits.authTimeoutMs(), limits.idleTimeoutMs()) / 4));
  }

  private void accept(NetSocket socket) {
    if (!budget.admit()) {
      metrics.recordBridgeRefusal("too_many_connections");
      Buffer json = new JsonObject().put("type", "err").put("message", BridgeSession.BUSY).toBuffer();
      socket.end(Buffer.buffer(json.length() + 4).appendInt(json.length()).appendBuffer(json));
      return;
    }
    BridgeConnection c = new BridgeConnection(vertx, socket, tokens, settings.limits(), budget, clock,
        new BridgeConnection.Owner() {
          @Override
          public void refused(String reason) {
            metrics.recordBridgeRefusal(reason);
          }

          @Override
          public void tokenRefused(String remote, String why) {
            long heldBack = tokenLog.admit(clock.getAsLong());
            if (heldBack >= 0) {
              LOG.info("bridge: refused the token of a connection from " + remote + ": " + why
                  + (heldBack > 0 ? " (and " + heldBack + " more since the last such line)" : ""));
            }
          }

          @Override
          public void closed(BridgeConnection connection) {
            connections.remove(connection);
          }
        });
    connections.add(c);
    c.start();
  }

  private void sweep() {
    long now = clock.getAsLong();
    for (BridgeConnection c : new ArrayList<>(connections)) {
      c.tick(now);
    }
  }

  public int actualPort() {
    return server == null ? -1 : server.actualPort();
  }

  @Override
  public Future<?> stop() {
    vertx.cancelTimer(sweeper);
    new ArrayList<>(connections).forEach(BridgeConnection::close);
    return server == null ? Future.succeededFuture() : server.close();
  }
}
