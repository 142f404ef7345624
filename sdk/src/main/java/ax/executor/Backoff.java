package ax.executor;

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Reconnect delays: {@code initial} doubling up to {@code max}, each shortened by a random part of up
 * to {@code jitter} of itself, so executors dropped by the same node failure do not all come back on
 * the same millisecond.
 */
public final class Backoff {
  private final long initialMs;
  private final long maxMs;
  private final double jitter;
  private final DoubleSupplier random;

  /** 100 ms doubling to 5 s, up to 20 % jitter. */
  public static Backoff defaults() {
    return new Backoff(100, 5_000, 0.2, () -> ThreadLocalRandom.current().nextDouble());
  }

  /**
   * @param random values in [0, 1); injected so tests see a fixed schedule
   */
  public Backoff(long initialMs, long maxMs, double jitter, DoubleSupplier random) {
    if (initialMs < 1 || maxMs < initialMs || jitter < 0 || jitter >= 1) {
      throw new IllegalArgumentException("need 1 ≤ initial ≤ max and 0 ≤ jitter < 1");
    }
    this.initialMs = initialMs;
    this.maxMs = maxMs;
    this.jitter = jitter;
    this.random = random;
  }

  /** The delay before reconnect number {@code attempt} (0 = the first after a drop). */
  public long delayMs(int attempt) {
    long base = initialMs;
    for (int i = 0; i < attempt && base < maxMs; i++) {
      base *= 2;
    }
    base = Math.min(base, maxMs);
    return Math.max(1, Math.round(base * (1 - jitter * random.getAsDouble())));
  }
}
