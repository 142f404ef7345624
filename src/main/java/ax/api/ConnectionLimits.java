package ax.api;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.SecurityPolicyHandler;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How many HTTP connections the node keeps and how long each may take in each state, so that a client
 * that connects and then sends nothing, or drips its headers or its body a byte at a time, holds a
 * connection for seconds, not forever (the server's idle timeout alone restarts with every byte):
 * <ul>
 *   <li>{@link #FIRST_REQUEST_MS} from connecting to the first request's complete headers;
 *   <li>{@link #BODY_MS} from a request's headers to the end of its body (408, then closed);
 *   <li>{@link #KEEP_ALIVE_MS} from the end of a response to the next request's complete headers.
 * </ul>
 * Beyond {@link Settings#maxConnections} open at once, a new connection is closed as it arrives: the API may not
 * take every file descriptor the node has (PostgreSQL and the bridge need theirs). One instance is
 * shared by every API verticle: the count is the node's.
 */
public final class ConnectionLimits implements SecurityPolicyHandler {
  public static final long FIRST_REQUEST_MS = 10_000;
  public static final long BODY_MS = 30_000;
  public static final long KEEP_ALIVE_MS = 60_000;

  /** The limits; {@link #defaults()} are the ones README states. */
  public record Settings(int maxConnections, long firstRequestMs, long bodyMs, long keepAliveMs) {
    public Settings {
      if (maxConnections < 1 || firstRequestMs < 1 || bodyMs < 1 || keepAliveMs < 1) {
        throw new IllegalArgumentException("connection limits must be positive: " + this);
      }
    }

    /** Half the file descriptors the process may open (at most 10 000) and the deadlines above. */
    public static Settings defaults() {
      long fds = 20_000;
      if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
          instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
        fds = unix.getMaxFileDescriptorCount();
      }
      return new Settings((int) Math.max(64, Math.min(10_000, fds / 2)), FIRST_REQUEST_MS, BODY_MS, KEEP_ALIVE_MS);
    }
  }

  private final Vertx vertx;
  private final Settings limits;
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicLong refused = new AtomicLong();
  /** Vert.x timer ids start at 0, so "no timer" is this. */
  private static final long NO_TIMER = -1;

  /**
   * Every open connection and the timer ({@link #NO_TIMER}: none) that closes it unless its next request arrives in
   * time. A connection leaves it when it closes, so nothing here keeps a closed connection (and the
   * buffers it held) alive.
   */
  private final Map<HttpConnection, AtomicLong> waiting = new ConcurrentHashMap<>();

  public ConnectionLimits(Vertx vertx, Settings limits) {
    this.vertx = vertx;
    this.limits = limits;
  }

  /** The server's connection handler: counts the connection and gives it until its first request. */
  public void opened(HttpConnection connection) {
    if (open.incrementAndGet() > limits.maxConnections()) {
      open.decrementAndGet();
      refused.incrementAndGet();
      connection.close();
      return;
    }
    waiting.put(connection, new AtomicLong(NO_TIMER));
    connection.closeHandler(v -> {
      open.decrementAndGet();
      cancelWait(connection);
      waiting.remove(connection);
    });
    waitForRequest(connection, limits.firstRequestMs());
  }

  /** First handler of every request: the headers are in; the body gets its own deadline. */
  @Override
  public void handle(RoutingContext ctx) {
    HttpConnection connection = ctx.request().connection();
    cancelWait(connection);
    long bodyTimer = ctx.request().isEnded() ? NO_TIMER : vertx.setTimer(limits.bodyMs(), id -> {
      if (!ctx.request().isEnded()) {
        new Problem(408, "request_timeout", "Request timeout",
            "the body did not arrive within " + limits.bodyMs() + " ms").sendAndCloseNow(ctx);
      }
    });
    if (bodyTimer != NO_TIMER) {
      ctx.request().end().onComplete(done -> vertx.cancelTimer(bodyTimer));
    }
    // The end handlers run when the response is done or the connection goes, whichever is first: the
    // timer must not keep a refused request (and the unread body queued on it) alive for BODY_MS.
    ctx.addEndHandler(done -> {
      if (bodyTimer != NO_TIMER) {
        vertx.cancelTimer(bodyTimer);
      }
      waitForRequest(connection, limits.keepAliveMs());
    });
    ctx.next();
  }

  /** Connections open now. */
  public int open() {
    return open.get();
  }

  /** Connections closed as they arrived because {@link Settings#maxConnections} were open, since start. */
  public long refused() {
    return refused.get();
  }

  private void waitForRequest(HttpConnection connection, long ms) {
    AtomicLong slot = waiting.get(connection);
    if (slot == null) {
      return; // closed already
    }
    long timer = vertx.setTimer(ms, id -> {
      if (slot.compareAndSet(id, NO_TIMER)) {
        connection.close();
      }
    });
    long previous = slot.getAndSet(timer);
    if (previous != NO_TIMER) {
      vertx.cancelTimer(previous);
    }
  }

  private void cancelWait(HttpConnection connection) {
    AtomicLong slot = waiting.get(connection);
    long timer = slot == null ? NO_TIMER : slot.getAndSet(NO_TIMER);
    if (timer != NO_TIMER) {
      vertx.cancelTimer(timer);
    }
  }
}
