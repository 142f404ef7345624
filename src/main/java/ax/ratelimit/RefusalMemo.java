package ax.ratelimit;

import io.vertx.core.Future;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Remembers, per key, how long the shared bucket said no token can exist, and refuses that key's
 * requests until then without asking again. Without it a key flooding the API costs a Redis round trip
 * per refused request, on the same two cores its neighbours' requests need (fault row 23).
 *
 * <p>It never refuses what the bucket would admit: tokens only arrive with time and other nodes only
 * take them away, the window is counted from before the question was sent (so it ends no later than
 * the bucket's, whatever the round trip took), and it is one millisecond short of the wait named, which
 * the bucket rounds up. A key whose limit changed is asked about again at once. It holds one entry per
 * key refused since its last admission; only known keys get this far (unknown ones are refused earlier).
 */
public final class RefusalMemo implements RateLimiter {
  /** The bucket names its wait rounded up to a whole millisecond; the memo stops that much earlier. */
  private static final long ROUNDING_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private record Refusal(RateLimitSpec spec, long tokenDueNanos) {
  }

  private final RateLimiter bucket;
  private final LongSupplier nanoClock;
  private final Map<String, Refusal> refusals = new ConcurrentHashMap<>();

  /**
   * @param bucket    the limiter that decides (Redis, falling back to this node's buckets)
   * @param nanoClock monotonic time in nanoseconds ({@code System::nanoTime} outside tests)
   */
  public RefusalMemo(RateLimiter bucket, LongSupplier nanoClock) {
    this.bucket = bucket;
    this.nanoClock = nanoClock;
  }

  @Override
  public Future<TokenBucket.Decision> tryAcquire(String accessKey, RateLimitSpec spec) {
    long askedAt = nanoClock.getAsLong();
    Refusal known = refusals.get(accessKey);
    if (known != null && known.spec().equals(spec) && known.tokenDueNanos() - ROUNDING_NANOS - askedAt > 0) {
      long waitMillis = TimeUnit.NANOSECONDS.toMillis(known.tokenDueNanos() - askedAt + 999_999);
      return Future.succeededFuture(new TokenBucket.Decision(false, waitMillis));
    }
    return bucket.tryAcquire(accessKey, spec).onSuccess(decision -> {
      if (decision.allowed()) {
        refusals.remove(accessKey);
      } else {
        long dueNanos = askedAt + TimeUnit.MILLISECONDS.toNanos(decision.retryAfterMillis());
        refusals.put(accessKey, new Refusal(spec, dueNanos));
      }
    });
  }
}
