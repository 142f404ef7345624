package ax.bridge;

/**
 * What all connections that have not authenticated may hold on one node together: how many there are,
 * and how many heap bytes of partial frames they keep. Each such connection is bounded on its own (a
 * pre-authentication frame limit and the authentication deadline); this bounds their sum, so the heap an
 * anonymous client can pin does not grow with the number of sockets it opens. Confined to the bridge's
 * event loop; the gauges read it from elsewhere and may see a value a moment old.
 */
public final class UnauthenticatedBudget {
  private final int maxConnections;
  private final long maxBytes;
  private int connections;
  private long bytes;

  public UnauthenticatedBudget(int maxConnections, long maxBytes) {
    if (maxConnections < 1 || maxBytes < 1) {
      throw new IllegalArgumentException("budget must be positive: " + maxConnections + " connections, "
          + maxBytes + " bytes");
    }
    this.maxConnections = maxConnections;
    this.maxBytes = maxBytes;
  }

  /** Counts a new connection in; false (and not counted) when there are already as many as allowed. */
  public boolean admit() {
    if (connections >= maxConnections) {
      return false;
    }
    connections++;
    return true;
  }

  /**
   * One connection now holds {@code after} bytes instead of {@code before}. False when the node's total is
   * over the budget: the caller closes that connection (and {@link #leave}s with what it holds).
   */
  public boolean hold(long before, long after) {
    bytes += after - before;
    return bytes <= maxBytes;
  }

  /** A counted connection authenticated or closed, holding {@code heldBytes}. */
  public void leave(long heldBytes) {
    connections--;
    bytes -= heldBytes;
  }

  public int connections() {
    return connections;
  }

  public long bytes() {
    return bytes;
  }
}
