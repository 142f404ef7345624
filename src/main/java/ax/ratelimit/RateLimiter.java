package ax.ratelimit;

import io.vertx.core.Future;

/** A token bucket per access key. */
public interface RateLimiter {
  Future<TokenBucket.Decision> tryAcquire(String accessKey, RateLimitSpec spec);
}
