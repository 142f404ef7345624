package ax.bridge;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetSocket;
import io.vertx.ext.auth.jwt.JWTAuth;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One executor's TCP connection, served in-process: bytes → {@link FrameDecoder} → {@link ClientFrames}
 * → {@link BridgeSession}, whose commands this class carries out on the socket and the event bus the way
 * the Vert.x TCP event-bus bridge did (requests answered as {@code message}/{@code err} frames addressed
 * to the client's {@code replyAddress}; the inbox's messages delivered as {@code message} frames, their
 * {@code replyAddress} remembered so the client can answer). Confined to the bridge verticle's event loop.
 *
 * <p>Backpressure, so that no client can make the node buffer without bound: the socket is paused while
 * a token is checked, while {@link #MAX_IN_FLIGHT_REQUESTS} of its requests wait for answers, and while
 * the client does not read what was written to it. Until it authenticates, what it holds counts against
 * the node's {@link UnauthenticatedBudget}.
 */
public final class BridgeConnection {
  private static final Logger LOG = Logger.getLogger(BridgeConnection.class.getName());
  /** An SDK has a handful of requests out (a heartbeat, a few result batches); beyond this we stop reading. */
  static final int MAX_IN_FLIGHT_REQUESTS = 32;
  /**
   * Requests the server sent and the client has not answered. The leader waits for a dispatch's ack only
   * {@code ack_timeout_ms} and has few out per executor, so the oldest beyond this are long dead.
   */
  static final int MAX_AWAITING_REPLIES = 1_024;
  /** Failure code for a request to an executor whose connection closed before it answered. */
  public static final int CONNECTION_CLOSED = 503;

  /** What the connection tells its owner. */
  public interface Owner {
    void refused(String reason);

    /** A token was refused; {@code why} is the verifier's reason. For the log, which the owner throttles. */
    void tokenRefused(String remote, String why);

    /** Called once, when the socket has closed. */
    void closed(BridgeConnection connection);
  }

  private final NetSocket socket;
  private final EventBus bus;
  private final JWTAuth tokens;
  private final BridgeLimits limits;
  private final UnauthenticatedBudget budget;
  private final LongSupplier clock;
  private final Owner owner;
  private final FrameDecoder decoder;
  private final BridgeSession session;
  private final Map<String, MessageConsumer<Object>> consumers = new HashMap<>();
  private final Map<String, Message<Object>> awaiting = new LinkedHashMap<>(16, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Message<Object>> eldest) {
      return size() > MAX_AWAITING_REPLIES;
    }
  };
  private boolean countedUnauthenticated = true;
  private long budgeted;
  private int inFlight;
  private boolean writeBlocked;
  private boolean reading = true;
  private boolean pumping;
  private boolean closing;
  private boolean closed;

  /** The connection must already be admitted by {@code budget}. */
  public BridgeConnection(Vertx vertx, NetSocket socket, JWTAuth tokens, BridgeLimits limits,
                          UnauthenticatedBudget budget, LongSupplier clock, Owner owner) {
    this.socket = socket;
    this.bus = vertx.eventBus();
    this.tokens = tokens;
    this.limits = limits;
    this.budget = budget;
    this.clock = clock;
    this.owner = owner;
    this.decoder = new FrameDecoder(limits.preAuthMaxFrameBytes());
    this.session = new BridgeSession(limits.authTimeoutMs(), limits.idleTimeoutMs(), clock.getAsLong());
  }

  public void start() {
    socket.handler(this::onData);
    socket.closeHandler(v -> onClosed());
    socket.exceptionHandler(e -> {
      LOG.log(Level.FINE, "bridge connection failed", e);
      socket.close();
    });
    socket.drainHandler(v -> {
      writeBlocked = false;
      pump();
    });
  }

  /** Checks the deadlines; called by the verticle's sweep. */
  public void tick(long nowMs) {
    if (!closing) {
      run(session.onTick(nowMs, throttled()));
    }
  }

  /** Closes from the node's side (the verticle stops). */
  public void close() {
    socket.close();
  }

  private void onData(Buffer data) {
    if (closing) {
      return;
    }
    decoder.feed(data.getBytes());
    pump();
  }

  /** Handles every whole frame the connection may take now, then pauses or resumes the socket to match. */
  private void pump() {
    if (pumping) {
      return; // called back from a command carried out inside the loop below; the loop goes on
    }
    pumping = true;
    try {
      while (!closing && session.takesFrames() && !throttled()) {
        FrameDecoder.Result r = decoder.next();
        if (r instanceof FrameDecoder.NeedMore) {
          break;
        }
        if (r instanceof FrameDecoder.TooLarge) {
          run(session.onFrameTooLarge());
          break;
        }
        ClientFrames.Parsed parsed = ClientFrames.parse(((FrameDecoder.Frame) r).body());
        run(parsed.frame() != null ? session.onFrame(parsed.frame(), clock.getAsLong(), awaiting::containsKey)
            : session.onMalformedFrame(parsed.refusal(), clock.getAsLong()));
      }
    } finally {
      pumping = false;
    }
    account();
    flow();
  }

  private boolean throttled() {
    return writeBlocked || inFlight >= MAX_IN_FLIGHT_REQUESTS;
  }

  /**
   * Keeps the node-wide count of bytes held by unauthenticated connections current (beyond each one's
   * {@link BridgeLimits#UNBUDGETED_BYTES_PER_CONNECTION}); over budget → closed.
   */
  private void account() {
    if (!countedUnauthenticated || closing) {
      return;
    }
    long held = Math.max(0, decoder.heldBytes() - BridgeLimits.UNBUDGETED_BYTES_PER_CONNECTION);
    boolean within = budget.hold(budgeted, held);
    budgeted = held;
    if (!within) {
      run(session.onOverBudget());
    }
  }

  private void releaseBudgetedBytes() {
    if (countedUnauthenticated) {
      budget.hold(budgeted, 0);
      budgeted = 0;
    }
  }

  private void flow() {
    if (closing) {
      return;
    }
    boolean read = session.takesFrames() && !throttled();
    if (read == reading) {
      return;
    }
    reading = read;
    if (read) {
      session.onResumed(clock.getAsLong());
      socket.resume();
    } else {
      socket.pause();
    }
  }

  // ---- commands → socket and event bus

  private void run(List<BridgeCommand> commands) {
    for (BridgeCommand c : commands) {
      try {
        execute(c);
      } catch (RuntimeException e) {
        // A handler must never die silently, nor take the connection's event loop with it.
        LOG.log(Level.WARNING, "bridge: carrying out " + c.getClass().getSimpleName() + " failed", e);
      }
    }
  }

  private void execute(BridgeCommand command) {
    if (command instanceof BridgeCommand.Pong) {
      write(new JsonObject().put("type", "pong"));
    } else if (command instanceof BridgeCommand.Error e) {
      owner.refused(e.reason());
      write(error(e.message()));
    } else if (command instanceof BridgeCommand.Close c) {
      owner.refused(c.reason());
      closing = true;
      // Give its bytes back now, not when the close completes: others must not be refused meanwhile.
      releaseBudgetedBytes();
      socket.end(encode(error(c.message()))); // written, flushed, then closed
    } else if (command instanceof BridgeCommand.CheckToken t) {
      ExecutorTokens.verify(tokens, t.token()).onComplete(ar -> {
        if (ar.failed()) {
          owner.tokenRefused(String.valueOf(socket.remoteAddress()), ar.cause().getMessage());
        }
        run(session.onTokenChecked(ar.succeeded() ? ar.result() : null));
        pump();
      });
    } else if (command instanceof BridgeCommand.Authenticated) {
      releaseBudgetedBytes();
      countedUnauthenticated = false;
      budget.leave(0);
      decoder.limit(limits.maxFrameBytes());
    } else if (command instanceof BridgeCommand.Request r) {
      request(r);
    } else if (command instanceof BridgeCommand.Send s) {
      bus.send(s.address(), s.body(), options(s.headers()));
    } else if (command instanceof BridgeCommand.Publish p) {
      bus.publish(p.address(), p.body(), options(p.headers()));
    } else if (command instanceof BridgeCommand.Reply r) {
      Message<Object> m = awaiting.remove(r.address());
      if (m != null) {
        m.reply(r.body(), options(r.headers()));
      }
    } else if (command instanceof BridgeCommand.FailReply f) {
      Message<Object> m = awaiting.remove(f.address());
      if (m != null) {
        m.fail(f.code(), f.message());
      }
    } else if (command instanceof BridgeCommand.Subscribe s) {
      consumers.put(s.address(), bus.consumer(s.address(), this::deliver));
    } else if (command instanceof BridgeCommand.Unsubscribe u) {
      MessageConsumer<Object> c = consumers.remove(u.address());
      if (c != null) {
        c.unregister();
      }
    } else {
      throw new IllegalStateException("unknown bridge command " + command);
    }
  }

  private void request(BridgeCommand.Request r) {
    Future<Message<Object>> answered;
    try {
      answered = bus.request(r.address(), r.body(), options(r.headers()).setSendTimeout(limits.forwardTimeoutMs()));
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "bridge: a request to " + r.address() + " could not be sent", e);
      write(failure(r.address(), r.replyAddress(), e));
      return;
    }
    inFlight++;
    answered.onComplete(ar -> {
      inFlight--;
      if (closing) {
        return;
      }
      try {
        if (ar.succeeded()) {
          Message<Object> answer = ar.result();
          if (answer.replyAddress() != null) {
            awaiting.put(answer.replyAddress(), answer);
          }
          write(message(r.replyAddress(), answer, true));
        } else {
          write(failure(r.address(), r.replyAddress(), ar.cause()));
        }
      } catch (RuntimeException e) { // an answer that is not JSON: the client still hears of it
        LOG.log(Level.WARNING, "bridge: the answer from " + r.address() + " cannot be sent to the executor", e);
        write(failure(r.address(), r.replyAddress(), e));
      }
      pump();
    });
  }

  /** A message to a subscribed address (a dispatch to the inbox) goes to the client as a frame. */
  private void deliver(Message<Object> m) {
    if (closing) {
      gone(m); // as if the consumer were already unregistered, instead of a silent timeout
      return;
    }
    Buffer frame;
    try {
      frame = encode(message(m.address(), m, m.isSend()));
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "bridge: a message to " + m.address() + " is not JSON; not delivered", e);
      if (m.replyAddress() != null) {
        m.fail(500, "the message cannot be sent over the bridge");
      }
      return;
    }
    if (m.replyAddress() != null) {
      awaiting.put(m.replyAddress(), m);
    }
    writeEncoded(frame);
  }

  private void write(JsonObject frame) {
    writeEncoded(encode(frame));
  }

  private void writeEncoded(Buffer frame) {
    if (closing) {
      return;
    }
    socket.write(frame);
    if (socket.writeQueueFull()) {
      writeBlocked = true;
      flow();
    }
  }

  private void onClosed() {
    if (closed) {
      return;
    }
    closed = true;
    closing = true;
    session.onClosed();
    consumers.values().forEach(MessageConsumer::unregister);
    consumers.clear();
    // Nobody can answer these any more: their reply addresses lived on this connection.
    awaiting.values().forEach(BridgeConnection::gone);
    awaiting.clear();
    if (countedUnauthenticated) {
      releaseBudgetedBytes();
      countedUnauthenticated = false;
      budget.leave(0);
    }
    owner.closed(this);
  }

  private static void gone(Message<Object> m) {
    if (m.replyAddress() != null) {
      m.fail(CONNECTION_CLOSED, "the executor's bridge connection closed");
    }
  }

  // ---- frames the server writes (the Vert.x TCP bridge's shapes)

  private static JsonObject message(String address, Message<Object> m, boolean send) {
    JsonObject headers = new JsonObject();
    m.headers().forEach(h -> headers.put(h.getKey(), h.getValue()));
    JsonObject frame = new JsonObject().put("type", "message").put("address", address);
    if (m.replyAddress() != null) {
      frame.put("replyAddress", m.replyAddress());
    }
    frame.put("headers", headers);
    if (m.body() != null) {
      frame.put("body", m.body());
    }
    return frame.put("send", send);
  }

  private static JsonObject failure(String address, String replyAddress, Throwable cause) {
    ReplyException re = cause instanceof ReplyException e ? e : null;
    return new JsonObject().put("type", "err").put("address", replyAddress).put("sourceAddress", address)
        .put("failureCode", re == null ? -1 : re.failureCode())
        .put("failureType", re == null ? "ERROR" : re.failureType().name())
        .put("message", cause.getMessage());
  }

  private static JsonObject error(String message) {
    return new JsonObject().put("type", "err").put("message", message);
  }

  private static DeliveryOptions options(Map<String, String> headers) {
    DeliveryOptions o = new DeliveryOptions();
    headers.forEach(o::addHeader);
    return o;
  }

  /** 4-byte big-endian length, then the UTF-8 JSON. */
  static Buffer encode(JsonObject frame) {
    Buffer json = frame.toBuffer();
    return Buffer.buffer(json.length() + 4).appendInt(json.length()).appendBuffer(json);
  }
}
