package ax.executor;

import ax.protocol.ExecutorAddresses;
import ax.protocol.HeartbeatReply;
import ax.protocol.ProtocolException;
import ax.protocol.RegisterReply;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;

import java.util.List;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * Keeps one registered session alive: connect to a server of the list, register (the first frame,
 * carrying the token), wait for the answer, subscribe to the inbox, heartbeat at once and then every
 * {@code heartbeat_ms}. When the connection drops or the register request fails it moves on to the next
 * server (round-robin) after an exponential {@link Backoff}; when a heartbeat is answered 410 (session
 * unknown / OFFLINE, e.g. after a leader change) it registers again on the same connection; after three
 * heartbeats in a row without an answer it gives up on that node and reconnects.
 *
 * <p>Confined to the executor's event-loop context: every method must be called on it.
 */
final class SessionKeeper implements BridgeConnection.Listener {
  private static final Logger LOG = Logger.getLogger(SessionKeeper.class.getName());
  private static final int MAX_MISSED_HEARTBEATS = 3;

  /** What the keeper needs from the executor it serves. All calls come on the context. */
  interface Host {
    JsonObject registerBody();

    JsonObject heartbeatBody(String session);

    /** A session is registered, subscribed and its first heartbeat sent. */
    void onSession(Session session);

    /** Any epoch the scheduler mentioned (register and heartbeat answers). */
    void onEpoch(long epoch);

    /** A dispatch arrived on the inbox; returns the ack to reply with. */
    JsonObject onDispatch(JsonObject dispatch);

    /** Every heartbeat period: a chance to retry what is waiting (results). */
    void onHeartbeatTick();
  }

  /** A registered session on one connection. */
  record Session(String id, ServerAddress server, String inbox, long heartbeatMs) {
  }

  private final Vertx vertx;
  private final ExecutorSettings settings;
  private final Host host;
  private final ExecutorListener listener;
  private final NetClient client;
  private final List<ServerAddress> servers;

  private BridgeConnection connection;
  private Session session;
  private String subscribedInbox;
  private int nextServer;
  private int reconnectAttempt;
  private int missedHeartbeats;
  private long heartbeatTimer = -1;
  private long reconnectTimer = -1;
  private boolean stopped;

  SessionKeeper(Vertx vertx, ExecutorSettings settings, Host host, ExecutorListener listener) {
    this.vertx = vertx;
    this.settings = settings;
    this.host = host;
    this.listener = listener;
    this.servers = settings.servers();
    this.client = vertx.createNetClient(new NetClientOptions().setConnectTimeout(5_000).setTcpNoDelay(true)
        .setTcpKeepAlive(true));
  }

  void start() {
    connectNext();
  }

  /** The current session, null while (re)connecting or (re)registering. */
  Session session() {
    return session;
  }

  /**
   * Sends a request that needs a session; the body is built for the current session id. Fails at once
   * when there is none, so callers keep their data and retry later.
   */
  Future<JsonObject> request(String address, Function<String, JsonObject> bodyForSession) {
    Session s = session;
    BridgeConnection c = connection;
    if (s == null || c == null) {
      return Future.failedFuture(new BridgeException(BridgeException.CLOSED, "NO_SESSION", "not registered"));
    }
    return c.request(address, null, bodyForSession.apply(s.id()), settings.requestTimeout().toMillis());
  }

  void stop() {
    stopped = true;
    cancelHeartbeat();
    if (reconnectTimer >= 0) {
      vertx.cancelTimer(reconnectTimer);
      reconnectTimer = -1;
    }
    if (connection != null) {
      connection.close();
    }
    session = null;
    client.close();
  }

  private void connectNext() {
    reconnectTimer = -1;
    if (stopped) {
      return;
    }
    ServerAddress server = servers.get(nextServer);
    nextServer = (nextServer + 1) % servers.size();
    BridgeConnection.open(vertx, client, server, this).onComplete(ar -> {
      if (ar.failed()) {
        listener.disconnected(server, ar.cause());
        scheduleReconnect();
        return;
      }
      BridgeConnection c = ar.result();
      if (stopped) {
        c.close();
        return;
      }
      connection = c;
      subscribedInbox = null;
      register(c);
    });
  }

  private void register(BridgeConnection c) {
    session = null;
    cancelHeartbeat();
    c.request(ExecutorAddresses.REGISTER, new JsonObject().put(ExecutorAddresses.TOKEN_HEADER, settings.token()),
        host.registerBody(),
        settings.requestTimeout().toMillis()).onComplete(ar -> {
          if (c != connection || stopped) {
            return;
          }
          if (ar.failed()) {
            // Most likely a bad token or no leader right now; either way try the next server after a pause.
            LOG.warning("register with " + c.server() + " failed: " + ar.cause().getMessage());
            c.close(); // onClosed schedules the reconnect
            return;
          }
          onRegistered(c, ar.result());
        });
  }

  private void onRegistered(BridgeConnection c, JsonObject answer) {
    RegisterReply reply;
    try {
      reply = RegisterReply.fromJson(answer, settings.executorId());
    } catch (ProtocolException e) {
      LOG.warning("register answer from " + c.server() + " is unusable (" + e.getMessage() + "): " + answer.encode());
      c.close();
      return;
    }
    if (reply.epoch() != Long.MIN_VALUE) {
      host.onEpoch(reply.epoch());
    }
    String inbox = reply.inbox();
    // Subscribe once per connection: the bridge keeps one consumer per address and socket, and a second
    // register frame would leave the first consumer behind (dispatches delivered twice).
    if (!inbox.equals(subscribedInbox)) {
      c.subscribe(inbox);
      subscribedInbox = inbox;
    }
    long heartbeatMs = reply.heartbeatMs();
    session = new Session(reply.session(), c.server(), inbox, heartbeatMs);
    reconnectAttempt = 0;
    missedHeartbeats = 0;
    listener.registered(settings.executorId(), c.server(), reply.session());
    heartbeat();
    heartbeatTimer = vertx.setPeriodic(heartbeatMs, t -> heartbeat());
    host.onSession(session);
  }

  private void heartbeat() {
    Session s = session;
    BridgeConnection c = connection;
    if (s == null || c == null) {
      return;
    }
    host.onHeartbeatTick();
    long timeout = Math.min(settings.requestTimeout().toMillis(), Math.max(s.heartbeatMs(), 1_000));
    c.request(ExecutorAddresses.HEARTBEAT, null, host.heartbeatBody(s.id()), timeout).onComplete(ar -> {
      if (c != connection || s != session || stopped) {
        return;
      }
      if (ar.succeeded()) {
        missedHeartbeats = 0;
        long epoch = HeartbeatReply.fromJson(ar.result()).epoch();
        if (epoch != Long.MIN_VALUE) {
          host.onEpoch(epoch);
        }
        return;
      }
      if (BridgeException.codeOf(ar.cause()) == HeartbeatReply.UNKNOWN_SESSION) {
        LOG.info("session " + s.id() + " is no longer known to the scheduler; registering again");
        register(c);
        return;
      }
      if (++missedHeartbeats >= MAX_MISSED_HEARTBEATS) {
        LOG.warning(missedHeartbeats + " heartbeats to " + c.server() + " unanswered (" + ar.cause().getMessage()
            + "); reconnecting");
        c.close();
      }
    });
  }

  @Override
  public void onMessage(BridgeConnection c, JsonObject frame) {
    if (c != connection) {
      return;
    }
    String address = frame.getString("address");
    if (address == null || !address.equals(subscribedInbox)) {
      LOG.fine(() -> "ignoring a message for " + address);
      return;
    }
    Object body = frame.getValue("body");
    JsonObject ack = host.onDispatch(body instanceof JsonObject json ? json : new JsonObject());
    String replyAddress = frame.getString("replyAddress");
    if (replyAddress != null) {
      c.reply(replyAddress, ack);
    }
  }

  @Override
  public void onError(BridgeConnection c, JsonObject frame) {
    LOG.warning("bridge error from " + c.server() + ": " + frame.getString("message", frame.encode()));
    if (c == connection && session == null) {
      // Before the register answer nothing else is in flight, so this is the token being refused
      // ("blocked by bridgeEvent handler"); do not wait for the register request to time out.
      c.close();
    }
  }

  @Override
  public void onClosed(BridgeConnection c, Throwable cause) {
    if (c != connection) {
      return;
    }
    connection = null;
    session = null;
    subscribedInbox = null;
    cancelHeartbeat();
    if (!stopped) {
      listener.disconnected(c.server(), cause);
      scheduleReconnect();
    }
  }

  private void scheduleReconnect() {
    if (stopped || reconnectTimer >= 0) {
      return;
    }
    long delay = settings.backoff().delayMs(reconnectAttempt++);
    listener.reconnecting(servers.get(nextServer), delay);
    reconnectTimer = vertx.setTimer(delay, t -> connectNext());
  }

  private void cancelHeartbeat() {
    if (heartbeatTimer >= 0) {
      vertx.cancelTimer(heartbeatTimer);
      heartbeatTimer = -1;
    }
  }
}
