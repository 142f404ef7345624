package ax.ratelimit;

import io.vertx.core.Future;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Buckets of this process (single node, or the fallback while Redis is down). */
public final class InMemoryRateLimiter implements RateLimiter {
  private record Keyed(RateLimitSpec spec, TokenBucket bucket) {
  }

  private final Map<String, Keyed> buckets = new ConcurrentHashMap<>();

  @Override
  public Future<TokenBucket.Decision> tryAcquire(String accessKey, RateLimitSpec spec) {
    long now = System.nanoTime();
    Keyed k = buckets.compute(accessKey, (key, old) ->
        old != null && old.spec().equals(spec) ? old
            : new Keyed(spec, new TokenBucket(spec.ratePerSecond(), spec.burst(), now)));
    return Future.succeededFuture(k.bucket().tryTake(now));
  }
}
