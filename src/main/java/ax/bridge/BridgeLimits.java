package ax.bridge;

/**
 * What one bridge connection may cost and for how long (docs/executor-protocol.md "Limits"); read from
 * the {@code AX_BRIDGE_*} variables by {@code AxConfig}.
 *
 * @param maxFrameBytes              largest frame from an authenticated executor
 *                                   ({@code AX_BRIDGE_MAX_FRAME_BYTES})
 * @param authTimeoutMs              a connection that has not authenticated by then is closed
 *                                   ({@code AX_BRIDGE_AUTH_TIMEOUT_MS})
 * @param idleTimeoutMs              a connection that sent no frame for this long is closed
 *                                   ({@code AX_BRIDGE_IDLE_TIMEOUT_MS})
 * @param maxUnauthenticated         connections that have not authenticated yet, per node
 *                                   ({@code AX_BRIDGE_MAX_UNAUTHENTICATED})
 * @param unauthenticatedBufferBytes heap bytes of partial frames those connections may hold together
 *                                   ({@code AX_BRIDGE_UNAUTHENTICATED_BUFFER_BYTES})
 * @param forwardTimeoutMs           how long a request forwarded to the event bus waits for its answer before
 *                                   the client is told TIMEOUT ({@link #FORWARD_TIMEOUT_MS}, not configurable)
 */
public record BridgeLimits(int maxFrameBytes, long authTimeoutMs, long idleTimeoutMs, int maxUnauthenticated,
                           long unauthenticatedBufferBytes, long forwardTimeoutMs) {
  /**
   * Before authentication the only frames with a purpose are {@code ping} and the register request. The
   * largest register the protocol allows (1 000 processor names of 128 characters, a token, the other
   * fields) is about 130 KiB; anything longer from an anonymous client is refused.
   */
  public static final int PRE_AUTH_MAX_FRAME_BYTES = 256 * 1024;
  public static final int DEFAULT_MAX_FRAME_BYTES = 1 << 20;
  /** A healthy executor sends its register within milliseconds of connecting; 10 s allows for a slow network. */
  public static final long DEFAULT_AUTH_TIMEOUT_MS = 10_000;
  /** Idle timeouts are at least this many heartbeat intervals: the leader has declared the executor OFFLINE at 4. */
  public static final int MIN_IDLE_HEARTBEATS = 4;
  public static final int DEFAULT_MAX_UNAUTHENTICATED = 1_024;
  /**
   * What each unauthenticated connection may hold outside the shared budget: an ordinary register
   * (a token and a few dozen processor names) fits, so an attacker who fills the budget with large
   * partial frames does not lock ordinary executors out; only registers larger than this compete for it.
   */
  public static final int UNBUDGETED_BYTES_PER_CONNECTION = 8 * 1024;
  public static final long DEFAULT_UNAUTHENTICATED_BUFFER_BYTES = 16L << 20;
  /**
   * Well under the Java SDK's 10 s request timeout, instead of the event bus's 30 s. For about ten seconds
   * after a node is killed (until Hazelcast drops it) the event bus still routes some requests to its
   * consumers; such a request is never answered, and the Vert.x event bus does not fail a request whose
   * write to a dead node failed (only a ReplyException fails it early). An SDK then waited its whole
   * timeout, twice if its re-send was routed there again — 20 s, the deadline of a task with timeout_ms
   * 20 s, which then runs again: the one run-twice ClusterFailoverIT showed in CI (second attempts 22.9 s
   * after the first) fits two such waits. Told TIMEOUT after 5 s, it sends again sooner. An answer that
   * really takes longer (a result write behind a backlog) is sent again too and refused as already
   * applied: harmless.
   */
  public static final long FORWARD_TIMEOUT_MS = 5_000;

  public BridgeLimits {
    if (maxFrameBytes < 1_024 || authTimeoutMs < 1 || idleTimeoutMs < 1 || maxUnauthenticated < 1
        || unauthenticatedBufferBytes < Math.min(maxFrameBytes, PRE_AUTH_MAX_FRAME_BYTES) || forwardTimeoutMs < 1) {
      throw new IllegalArgumentException("bridge limits out of range: " + this);
    }
  }

  /** 30 s, or 6 heartbeat intervals when that is longer: an executor that misses 5 in a row is still not cut. */
  public static long defaultIdleTimeoutMs(long heartbeatMs) {
    return Math.max(30_000, 6 * heartbeatMs);
  }

  public static BridgeLimits defaults(long heartbeatMs) {
    return new BridgeLimits(DEFAULT_MAX_FRAME_BYTES, DEFAULT_AUTH_TIMEOUT_MS, defaultIdleTimeoutMs(heartbeatMs),
        DEFAULT_MAX_UNAUTHENTICATED, DEFAULT_UNAUTHENTICATED_BUFFER_BYTES, FORWARD_TIMEOUT_MS);
  }

  /** The frame limit until the connection has authenticated. */
  public int preAuthMaxFrameBytes() {
    return Math.min(maxFrameBytes, PRE_AUTH_MAX_FRAME_BYTES);
  }
}
