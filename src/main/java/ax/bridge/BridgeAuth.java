package ax.bridge;

import ax.protocol.ExecutorAddresses;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetSocket;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.bridge.BridgeEventType;
import io.vertx.ext.eventbus.bridge.tcp.BridgeEvent;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.logging.Logger;

/**
 * The bridge's event hook: who is on each connection. The bridge calls it for every frame before its
 * address checks (VERTX5-NOTES §2). A connection authenticates with its first frame — the
 * {@code ax.exec.register} request carrying {@code headers.token}, a JWT checked with
 * {@link ExecutorTokens} — and every later frame is stamped with the executor id from the token
 * ({@code headers.executor_id}, whatever the client put there), so the leader trusts the header, not the
 * body. Unauthenticated frames are refused and the connection is closed; an executor may subscribe
 * only to its own inbox.
 */
public final class BridgeAuth {
  private static final Logger LOG = Logger.getLogger(BridgeAuth.class.getName());
  private static final long CLOSE_AFTER_REFUSAL_MS = 50;

  private final Vertx vertx;
  private final JWTAuth tokens;
  private final Refusals refusals;
  /** Weak keys: the bridge drops a closed connection's socket, and its entry goes with it. */
  private final Map<NetSocket, String> principals = new WeakHashMap<>();
  private final Set<NetSocket> subscribed = Collections.newSetFromMap(new WeakHashMap<>());

  /** Counts refusals by reason, for metrics. */
  public interface Refusals {
    void refused(String reason);
  }

  public BridgeAuth(Vertx vertx, JWTAuth tokens, Refusals refusals) {
    this.vertx = vertx;
    this.tokens = tokens;
    this.refusals = refusals;
  }

  public void handle(BridgeEvent ev) {
    BridgeEventType type = ev.type();
    if (type == BridgeEventType.SOCKET_PING || type == BridgeEventType.SOCKET_CREATED
        || type == BridgeEventType.SOCKET_CLOSED) {
      ev.complete(true);
      return;
    }
    JsonObject raw = ev.getRawMessage();
    String who = principals.get(ev.socket());
    if (who == null) {
      authenticate(ev, type, raw);
      return;
    }
    switch (type) {
      case REGISTER -> {
        boolean own = raw != null && ExecutorAddresses.inbox(who).equals(raw.getString("address"));
        // The bridge keeps one consumer per address and connection; a second subscribe would leak the
        // first consumer and deliver every dispatch twice.
        boolean first = own && subscribed.add(ev.socket());
        if (!own) {
          refusals.refused("foreign_inbox");
        } else if (!first) {
          refusals.refused("duplicate_subscribe");
        }
        ev.complete(first);
      }
      case UNREGISTER -> {
        boolean own = raw != null && ExecutorAddresses.inbox(who).equals(raw.getString("address"));
        if (own) {
          subscribed.remove(ev.socket());
        }
        ev.complete(own);
      }
      case SEND, PUBLISH -> {
        ev.setRawMessage(stamped(raw, who));
        ev.complete(true);
      }
      default -> ev.complete(true);
    }
  }

  private void authenticate(BridgeEvent ev, BridgeEventType type, JsonObject raw) {
    JsonObject headers = raw == null ? null : raw.getJsonObject("headers");
    String token = headers == null ? null : headers.getString(ExecutorAddresses.TOKEN_HEADER);
    if (type != BridgeEventType.SEND || token == null || !ExecutorAddresses.REGISTER.equals(raw.getString("address"))) {
      refuse(ev, "unauthenticated");
      return;
    }
    ExecutorTokens.verify(tokens, token).onComplete(ar -> {
      String subject = ar.succeeded() ? ar.result() : null;
      if (subject == null) {
        LOG.info("bridge: refused a connection: " + ar.cause().getMessage());
        refuse(ev, "bad_token");
        return;
      }
      principals.put(ev.socket(), subject);
      ev.setRawMessage(stamped(raw, subject));
      ev.complete(true);
    });
  }

  private void refuse(BridgeEvent ev, String reason) {
    refusals.refused(reason);
    NetSocket socket = ev.socket();
    ev.complete(false); // the bridge answers {"type":"err","message":"blocked by bridgeEvent handler"}
    vertx.setTimer(CLOSE_AFTER_REFUSAL_MS, id -> socket.close()); // after that error frame is flushed
  }

  private static JsonObject stamped(JsonObject raw, String executorId) {
    JsonObject copy = raw.copy();
    JsonObject headers = copy.getJsonObject("headers");
    headers = headers == null ? new JsonObject() : headers;
    headers.remove(ExecutorAddresses.TOKEN_HEADER);
    headers.put(ExecutorAddresses.EXECUTOR_HEADER, executorId);
    copy.put("headers", headers);
    return copy;
  }
}
