package ax.ratelimit;

/**
 * A classic token bucket: it holds up to {@code burst} tokens, refills at {@code ratePerSecond}, and
 * each request takes one. A client may therefore send a burst after being idle, but not more than the
 * rate on average. Starts full, so a new key is not throttled on its first requests.
 *
 * <p>Time is passed in as monotonic nanoseconds ({@code System.nanoTime()} semantics), never read
 * here, so refills are immune to wall-clock jumps and tests need no sleeping. A time earlier than the
 * last one seen adds nothing: a misbehaving clock can only make the bucket stricter. Thread-safe.
 */
public final class TokenBucket {

  /** The outcome of one {@link #tryTake}. */
  public record Decision(boolean allowed, long retryAfterMillis) {
  }

  private static final Decision ALLOWED = new Decision(true, 0);
  private static final double NANOS_PER_SECOND = 1e9;
  /** Refills are floating point; a bucket a billionth of a token short of one is treated as full enough. */
  private static final double ROUNDING_SLACK = 1e-9;

  private final double ratePerSecond;
  private final double burst;
  private double tokens;
  private long lastRefillNanos;

  /**
   * @param ratePerSecond tokens added per second; positive
   * @param burst         the bucket's size; at least 1, or no request could ever pass
   * @param nowNanos      the current monotonic time
   */
  public TokenBucket(double ratePerSecond, double burst, long nowNanos) {
    if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
      throw new IllegalArgumentException("rate must be a positive number, was " + ratePerSecond);
    }
    if (!(burst >= 1) || Double.isInfinite(burst)) {
      throw new IllegalArgumentException("burst must be at least 1, was " + burst);
    }
    this.ratePerSecond = ratePerSecond;
    this.burst = burst;
    this.tokens = burst;
    this.lastRefillNanos = nowNanos;
  }

  /**
   * Takes a token if one is available. When refused, {@code retryAfterMillis} is how long until one
   * will be (at least 1 ms), which the API turns into {@code Retry-After}.
   */
  public synchronized Decision tryTake(long nowNanos) {
    long elapsedNanos = nowNanos - lastRefillNanos;
    if (elapsedNanos > 0) {
      tokens = Math.min(burst, tokens + elapsedNanos * ratePerSecond / NANOS_PER_SECOND);
      lastRefillNanos = nowNanos;
    }
    if (tokens >= 1 - ROUNDING_SLACK) {
      tokens = Math.max(0, tokens - 1);
      return ALLOWED;
    }
    long waitMillis = (long) Math.ceil((1 - tokens) / ratePerSecond * 1000);
    return new Decision(false, Math.max(1, waitMillis));
  }
}
