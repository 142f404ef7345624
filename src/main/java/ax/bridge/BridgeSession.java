package ax.bridge;

import ax.protocol.ExecutorAddresses;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Who is on one bridge connection and what they may do, decided without I/O: frames and the time go in,
 * {@link BridgeCommand}s come out ({@code BridgeConnection} carries them out).
 *
 * <pre>
 *   OPEN ──register request with headers.token──▶ CHECKING_TOKEN ──valid──▶ AUTHENTICATED
 *    │  ping → pong; anything else → refused, closed      │ invalid → refused, closed
 *    └── no authentication within the auth timeout, or no frame within the idle timeout → closed
 * </pre>
 *
 * <ul>
 *   <li>The first frame other than {@code ping} must be the {@code ax.exec.register} request carrying
 *       {@code headers.token}. While the token is checked the connection reads nothing more
 *       ({@link #takesFrames()}), so later frames are handled in order once it is known.</li>
 *   <li>Once authenticated, every frame sent on is stamped: header {@code executor_id} = the token's
 *       subject (whatever the client put there), {@code token} removed. The leader trusts that header.</li>
 *   <li>An executor may send and publish only to {@link ExecutorAddresses#INBOUND}, answer requests the
 *       server sent it, and subscribe to its own inbox, once.</li>
 *   <li>Refusal messages are those of the Vert.x TCP bridge this replaced, so executors read them as before.</li>
 * </ul>
 */
public final class BridgeSession {
  /** The Vert.x bridge's refusal text, kept: the SDK and the Python example recognise it. */
  public static final String BLOCKED = "blocked by bridgeEvent handler";
  public static final String ACCESS_DENIED = "access_denied";
  public static final String UNKNOWN_ADDRESS = "unknown_address";
  public static final String FRAME_TOO_LARGE = "frame_too_large";
  public static final String AUTH_TIMEOUT = "auth_timeout";
  public static final String IDLE_TIMEOUT = "idle_timeout";
  public static final String BUSY = "busy";

  /** Where the connection is in its life. */
  public enum Phase { OPEN, CHECKING_TOKEN, AUTHENTICATED, CLOSED }

  private final long authTimeoutMs;
  private final long idleTimeoutMs;
  private final long openedAtMs;
  private long lastFrameAtMs;
  private Phase phase = Phase.OPEN;
  private String executorId;
  private boolean subscribed;
  private ClientFrame heldRegister;

  public BridgeSession(long authTimeoutMs, long idleTimeoutMs, long nowMs) {
    this.authTimeoutMs = authTimeoutMs;
    this.idleTimeoutMs = idleTimeoutMs;
    this.openedAtMs = nowMs;
    this.lastFrameAtMs = nowMs;
  }

  public Phase phase() {
    return phase;
  }

  /** The token's subject once authenticated, else null. */
  public String executorId() {
    return executorId;
  }

  /** False while a token is being checked or after the close: the connection must not read frames then. */
  public boolean takesFrames() {
    return phase == Phase.OPEN || phase == Phase.AUTHENTICATED;
  }

  /**
   * A well-formed frame.
   *
   * @param awaitingReply whether an address is a request the server sent this connection and that is
   *                      still waiting for its answer
   */
  public List<BridgeCommand> onFrame(ClientFrame f, long nowMs, Predicate<String> awaitingReply) {
    requireTakingFrames();
    lastFrameAtMs = nowMs;
    if (f.type() == ClientFrame.Type.PING) {
      return List.of(new BridgeCommand.Pong());
    }
    return phase == Phase.OPEN ? unauthenticated(f) : authenticated(f, awaitingReply);
  }

  /** A frame that {@link ClientFrames} refused: the client hears why, and the connection stays usable. */
  public List<BridgeCommand> onMalformedFrame(String refusal, long nowMs) {
    requireTakingFrames();
    lastFrameAtMs = nowMs;
    return List.of(new BridgeCommand.Error(refusal, refusal));
  }

  /** A header declared more than the limit: the rest of the stream cannot be framed, so the connection goes. */
  public List<BridgeCommand> onFrameTooLarge() {
    return close(FRAME_TOO_LARGE, FRAME_TOO_LARGE);
  }

  /** The node's budget for unauthenticated connections is spent: this one goes. */
  public List<BridgeCommand> onOverBudget() {
    return close(BUSY, BUSY);
  }

  /** The answer to {@link BridgeCommand.CheckToken}: the token's subject, or null when it was refused. */
  public List<BridgeCommand> onTokenChecked(String subject) {
    if (phase != Phase.CHECKING_TOKEN) {
      return List.of(); // closed meanwhile
    }
    ClientFrame register = heldRegister;
    heldRegister = null;
    if (subject == null) {
      return close(BLOCKED, "bad_token");
    }
    phase = Phase.AUTHENTICATED;
    executorId = subject;
    return List.of(new BridgeCommand.Authenticated(subject), sendOn(register));
  }

  /**
   * The deadlines, checked against the time given. The idle clock stops while the node itself holds the
   * connection back ({@code throttled}: its answers are not read, or its requests are not yet answered).
   */
  public List<BridgeCommand> onTick(long nowMs, boolean throttled) {
    if (phase == Phase.CLOSED) {
      return List.of();
    }
    if (phase != Phase.AUTHENTICATED && nowMs - openedAtMs >= authTimeoutMs) {
      return close(AUTH_TIMEOUT, AUTH_TIMEOUT);
    }
    if (!throttled && nowMs - lastFrameAtMs >= idleTimeoutMs) {
      return close(IDLE_TIMEOUT, IDLE_TIMEOUT);
    }
    return List.of();
  }

  /** The node stopped holding the connection back; its idle clock starts again from now. */
  public void onResumed(long nowMs) {
    lastFrameAtMs = Math.max(lastFrameAtMs, nowMs);
  }

  /** The socket is gone. */
  public void onClosed() {
    phase = Phase.CLOSED;
    heldRegister = null;
  }

  private List<BridgeCommand> unauthenticated(ClientFrame f) {
    String token = f.headers().get(ExecutorAddresses.TOKEN_HEADER);
    if (f.type() != ClientFrame.Type.SEND || !ExecutorAddresses.REGISTER.equals(f.address()) || token == null) {
      return close(BLOCKED, "unauthenticated");
    }
    phase = Phase.CHECKING_TOKEN;
    heldRegister = f;
    return List.of(new BridgeCommand.CheckToken(token));
  }

  private List<BridgeCommand> authenticated(ClientFrame f, Predicate<String> awaitingReply) {
    String inbox = ExecutorAddresses.inbox(executorId);
    return switch (f.type()) {
      case REGISTER -> {
        if (!inbox.equals(f.address())) {
          yield List.of(new BridgeCommand.Error(BLOCKED, "foreign_inbox"));
        }
        if (subscribed) {
          // A second consumer would deliver every dispatch twice.
          yield List.of(new BridgeCommand.Error(BLOCKED, "duplicate_subscribe"));
        }
        subscribed = true;
        yield List.of(new BridgeCommand.Subscribe(inbox));
      }
      case UNREGISTER -> {
        if (!inbox.equals(f.address())) {
          yield List.of(new BridgeCommand.Error(BLOCKED, "foreign_inbox"));
        }
        if (!subscribed) {
          yield List.of(new BridgeCommand.Error(UNKNOWN_ADDRESS, UNKNOWN_ADDRESS));
        }
        subscribed = false;
        yield List.of(new BridgeCommand.Unsubscribe(inbox));
      }
      case SEND -> {
        if (f.replyAddress() == null && awaitingReply.test(f.address())) {
          yield List.of(f.failureCode() != null
              ? new BridgeCommand.FailReply(f.address(), f.failureCode(), f.failureMessage())
              : new BridgeCommand.Reply(f.address(), stamped(f.headers()), f.body()));
        }
        yield ExecutorAddresses.INBOUND.contains(f.address()) ? List.of(sendOn(f)) : denied();
      }
      case PUBLISH -> ExecutorAddresses.INBOUND.contains(f.address())
          ? List.of(new BridgeCommand.Publish(f.address(), stamped(f.headers()), f.body())) : denied();
      case PING -> List.of(new BridgeCommand.Pong());
    };
  }

  private BridgeCommand sendOn(ClientFrame f) {
    return f.replyAddress() != null
        ? new BridgeCommand.Request(f.address(), f.replyAddress(), stamped(f.headers()), f.body())
        : new BridgeCommand.Send(f.address(), stamped(f.headers()), f.body());
  }

  private Map<String, String> stamped(Map<String, String> headers) {
    Map<String, String> out = new HashMap<>(headers);
    out.remove(ExecutorAddresses.TOKEN_HEADER);
    out.put(ExecutorAddresses.EXECUTOR_HEADER, executorId);
    return out;
  }

  private static List<BridgeCommand> denied() {
    return List.of(new BridgeCommand.Error(ACCESS_DENIED, ACCESS_DENIED));
  }

  private List<BridgeCommand> close(String message, String reason) {
    phase = Phase.CLOSED;
    heldRegister = null;
    return List.of(new BridgeCommand.Close(message, reason));
  }

  private void requireTakingFrames() {
    if (!takesFrames()) {
      throw new IllegalStateException("a frame was handed to a session in phase " + phase);
    }
  }
}
