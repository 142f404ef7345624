package ax.executor;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetSocket;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Logger;

/**
 * One TCP connection to a bridge: frames in and out, requests matched to their answers by a generated
 * {@code replyAddress} (each with its own timeout), and every other incoming frame handed to a
 * {@link Listener}. It does not reconnect; {@link SessionKeeper} decides what to do when it closes.
 * Confined to the event-loop context it was opened on.
 */
final class BridgeConnection {
  private static final Logger LOG = Logger.getLogger(BridgeConnection.class.getName());

  /** What the connection cannot handle itself. All callbacks run on the connection's context. */
  interface Listener {
    /** A {@code message} frame that is not the answer to one of our requests (e.g. a dispatch). */
    void onMessage(BridgeConnection connection, JsonObject frame);

    /** An {@code err} frame not tied to one of our requests (e.g. "blocked by bridgeEvent handler"). */
    void onError(BridgeConnection connection, JsonObject frame);

    /** The connection is gone; called once. */
    void onClosed(BridgeConnection connection, Throwable cause);
  }

  private record Pending(Promise<JsonObject> promise, long timer) {
  }

  private final Vertx vertx;
  private final NetSocket socket;
  private final ServerAddress server;
  private final Listener listener;
  private final String replyPrefix = "ax.reply." + UUID.randomUUID() + ".";
  private final Map<String, Pending> pending = new HashMap<>();
  private long nextReply;
  private boolean closed;
  private Throwable closeCause;

  private BridgeConnection(Vertx vertx, NetSocket socket, ServerAddress server, Listener listener) {
    this.vertx = vertx;
    this.socket = socket;
    this.server = server;
    this.listener = listener;
  }

  /** Connects; must be called on the context that will own the connection. */
  static Future<BridgeConnection> open(Vertx vertx, NetClient client, ServerAddress server, Listener listener) {
    return client.connect(server.port(), server.host()).map(socket -> {
      BridgeConnection c = new BridgeConnection(vertx, socket, server, listener);
      socket.handler(new FrameCodec.Decoder(c::onFrame, c::onDecodeError));
      socket.exceptionHandler(c::onSocketError);
      socket.closeHandler(v -> c.onClosed());
      LOG.fine(() -> "connected to " + server);
      return c;
    });
  }

  ServerAddress server() {
    return server;
  }

  boolean isOpen() {
    return !closed;
  }

  /**
   * Sends a request and waits up to {@code timeoutMs} for its answer's body. Fails with
   * {@link BridgeException} on an {@code err} answer, a timeout or when the connection closes first.
   */
  Future<JsonObject> request(String address, JsonObject headers, JsonObject body, long timeoutMs) {
    if (closed) {
      return Future.failedFuture(new BridgeException(BridgeException.CLOSED, "CLOSED", "connection closed"));
    }
    String replyAddress = replyPrefix + (nextReply++);
    JsonObject frame = new JsonObject().put("type", "send").put("address", address).put("replyAddress", replyAddress)
        .put("body", body);
    if (headers != null) {
      frame.put("headers", headers);
    }
    try {
      write(frame);
    } catch (FrameCodec.FrameTooLargeException e) {
      return Future.failedFuture(e);
    }
    Promise<JsonObject> promise = Promise.promise();
    long timer = vertx.setTimer(timeoutMs, id -> {
      Pending p = pending.remove(replyAddress);
      if (p != null) {
        p.promise().tryFail(new BridgeException(BridgeException.TIMEOUT, "TIMEOUT",
            "no answer from " + address + " within " + timeoutMs + " ms"));
      }
    });
    pending.put(replyAddress, new Pending(promise, timer));
    return promise.future();
  }

  /** Answers a request the server sent us (a dispatch): a send to its replyAddress, no replyAddress of ours. */
  void reply(String replyAddress, JsonObject body) {
    write(new JsonObject().put("type", "send").put("address", replyAddress).put("body", body));
  }

  /** Subscribes to an address (the inbox); incoming messages go to {@link Listener#onMessage}. */
  void subscribe(String address) {
    write(new JsonObject().put("type", "register").put("address", address));
  }

  void close() {
    if (!closed) {
      socket.close();
    }
  }

  private void write(JsonObject frame) {
    if (!closed) {
      socket.write(FrameCodec.encode(frame));
    }
  }

  private void onFrame(JsonObject frame) {
    String type = frame.getString("type", "");
    String address = frame.getString("address");
    Pending p = address == null ? null : pending.remove(address);
    if (p != null) {
      vertx.cancelTimer(p.timer());
      if ("err".equals(type)) {
        p.promise().tryFail(new BridgeException(frame.getInteger("failureCode", -1),
            frame.getString("failureType", "ERROR"), frame.getString("message", "failed")));
      } else {
        Object body = frame.getValue("body");
        p.promise().tryComplete(body instanceof JsonObject json ? json : new JsonObject().put("value", body));
      }
      return;
    }
    switch (type) {
      case "message" -> listener.onMessage(this, frame);
      case "err" -> listener.onError(this, frame);
      case "pong" -> { }
      default -> LOG.fine(() -> "ignoring frame from " + server + ": " + frame.encode());
    }
  }

  private void onDecodeError(Throwable error) {
    LOG.warning("bad frame from " + server + ", closing: " + error.getMessage());
    closeCause = error;
    socket.close();
  }

  private void onSocketError(Throwable error) {
    if (closeCause == null) {
      closeCause = error;
    }
    LOG.fine(() -> "socket error from " + server + ": " + error);
  }

  private void onClosed() {
    if (closed) {
      return;
    }
    closed = true;
    BridgeException gone = new BridgeException(BridgeException.CLOSED, "CLOSED", "connection to " + server + " closed");
    Map<String, Pending> failing = new HashMap<>(pending);
    pending.clear();
    failing.values().forEach(p -> {
      vertx.cancelTimer(p.timer());
      p.promise().tryFail(gone);
    });
    listener.onClosed(this, closeCause != null ? closeCause : gone);
  }
}
