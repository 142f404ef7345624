package ax.executor;

import ax.protocol.PoolRule;

import java.util.Locale;

/**
 * The three isolated worker pools. A slow or stuck processor can exhaust its own pool but never the
 * others, so urgent work keeps flowing while long jobs queue up.
 */
public enum Pool {
  HIGH(PoolRule.HIGH), DEFAULT(PoolRule.DEFAULT), SLOW(PoolRule.SLOW);

  private final String wireName;

  Pool(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in the protocol ({@code capacity}, {@code free}, a dispatch's {@code pool}). */
  public String wireName() {
    return wireName;
  }

  /** Parses a wire name; null or unknown names give null so the caller can fall back. */
  public static Pool fromWire(String name) {
    if (name == null) {
      return null;
    }
    for (Pool p : values()) {
      if (p.wireName.equals(name.toLowerCase(Locale.ROOT))) {
        return p;
      }
    }
    return null;
  }

  /**
   * Where a task runs: the pool its handler was registered with, else the dispatch's {@code pool}, else
   * the protocol's rule ({@link PoolRule#forTask}).
   */
  public static Pool route(Pool registered, String dispatchPool, int priority, long timeoutMs) {
    if (registered != null) {
      return registered;
    }
    Pool fromDispatch = fromWire(dispatchPool);
    return fromDispatch != null ? fromDispatch : fromWire(PoolRule.forTask(priority, timeoutMs));
  }
}
