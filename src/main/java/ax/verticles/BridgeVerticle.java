package ax.verticles;

import ax.bridge.BridgeAuth;
import ax.bridge.FrameGate;
import ax.protocol.ExecutorAddresses;
import ax.protocol.Names;
import ax.metrics.AxMetrics;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.bridge.BridgeOptions;
import io.vertx.ext.bridge.PermittedOptions;
import io.vertx.ext.eventbus.bridge.tcp.TcpEventBusBridge;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.logging.Logger;
import java.util.regex.Pattern;

/**
 * Every node serves executors (ARCHITECTURE "Cluster"): the public port is a {@link FrameGate} that
 * checks each frame, in front of a Vert.x TCP event-bus bridge on a loopback port. The bridge lets
 * executors send only to {@link ExecutorAddresses#INBOUND} and subscribe only to inboxes, and its hook
 * ({@link BridgeAuth}) authenticates and stamps every frame. Through the clustered event bus an
 * executor's messages reach the leader whichever node it is connected to, and the leader's dispatches
 * reach the executor's inbox here.
 */
public final class BridgeVerticle extends VerticleBase {
  private static final Logger LOG = Logger.getLogger(BridgeVerticle.class.getName());
  private static final String LOOPBACK = "127.0.0.1";

  private final String bindHost;
  private final int port;
  private final int maxFrameBytes;
  private final JWTAuth tokens;
  private final AxMetrics metrics;
  private TcpEventBusBridge bridge;
  private NetServer gate;

  /**
   * @param bindHost      the interface the public bridge port listens on
   * @param port          the public bridge port; 0 picks a free one
   * @param maxFrameBytes the largest frame an executor may send
   */
  public record Settings(String bindHost, int port, int maxFrameBytes) {
    public Settings {
      if (bindHost == null || port < 0 || port > 65_535 || maxFrameBytes < 2) {
        throw new IllegalArgumentException("bridge settings out of range: " + this);
      }
    }
  }

  public BridgeVerticle(Settings settings, JWTAuth tokens, AxMetrics metrics) {
    this.bindHost = settings.bindHost();
    this.port = settings.port();
    this.maxFrameBytes = settings.maxFrameBytes();
    this.tokens = tokens;
    this.metrics = metrics;
  }

  static BridgeOptions permissions() {
    BridgeOptions o = new BridgeOptions();
    for (String address : ExecutorAddresses.INBOUND) {
      o.addInboundPermitted(new PermittedOptions().setAddress(address));
    }
    return o.addOutboundPermitted(new PermittedOptions()
        .setAddressRegex(Pattern.quote(ExecutorAddresses.INBOX_PREFIX) + "[A-Za-z0-9._:-]{1," + Names.EXECUTOR_ID_MAX + "}"));
  }

  @Override
  public Future<?> start() throws IOException {
    BridgeAuth auth = new BridgeAuth(vertx, tokens, reason -> metrics.recordBridgeRefusal(reason));
    int internalPort = freeLoopbackPort();
    bridge = TcpEventBusBridge.create(vertx, permissions(), new NetServerOptions().setTcpNoDelay(true), auth::handle);
    FrameGate frameGate = new FrameGate(vertx.createNetClient(new NetClientOptions().setTcpNoDelay(true)),
        LOOPBACK, internalPort, maxFrameBytes, reason -> metrics.recordBridgeRefusal(reason));
    return bridge.listen(internalPort, LOOPBACK)
        .compose(b -> vertx.createNetServer(new NetServerOptions().setTcpNoDelay(true).setHost(bindHost))
            .connectHandler(frameGate::accept)
            .listen(port))
        .onSuccess(server -> {
          gate = server;
          LOG.info("executor bridge on " + bindHost + ":" + server.actualPort());
        });
  }

  public int actualPort() {
    return gate == null ? -1 : gate.actualPort();
  }

  @Override
  public Future<?> stop() {
    Future<Void> g = gate == null ? Future.succeededFuture() : gate.close();
    return g.eventually(() -> bridge == null ? Future.succeededFuture() : bridge.close());
  }

  /** The bridge API cannot report the port it bound, so we pick a free one first. */
  private static int freeLoopbackPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
      return s.getLocalPort();
    }
  }
}
