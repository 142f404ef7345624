package ax.ratelimit;

import ax.redis.RedisScript;
import io.vertx.core.Future;
import io.vertx.redis.client.RedisAPI;

import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A token bucket per key shared by all nodes, evaluated atomically in Redis by a Lua script (Redis
 * time, so node clocks do not matter). Policy when Redis is unreachable: fall back to this node's
 * in-memory bucket — the limit then holds per node instead of per cluster, and the API stays up.
 */
public final class RedisRateLimiter implements RateLimiter {
  private static final Logger LOG = Logger.getLogger(RedisRateLimiter.class.getName());

  // KEYS[1] bucket; ARGV rate, burst. Returns {allowed, retry_after_ms}.
  static final String SCRIPT = """
      local t = redis.call('TIME')
      local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
      local rate = tonumber(ARGV[1])
      local burst = tonumber(ARGV[2])
      local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
      local tokens = tonumber(b[1])
      local ts = tonumber(b[2])
      if tokens == nil then tokens = burst; ts = now end
      if now > ts then tokens = math.min(burst, tokens + (now - ts) * rate / 1000); ts = now end
      local allowed = 0
      local wait = 0
      if tokens >= 1 then tokens = tokens - 1; allowed = 1
      else wait = math.ceil((1 - tokens) * 1000 / rate) end
      redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(ts))
      redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
      return {allowed, wait}
      """;

  private final RedisScript script;
  private final String prefix;
  private final RateLimiter fallback;

  public RedisRateLimiter(RedisAPI redis, String prefix, RateLimiter fallback) {
    this.script = new RedisScript(redis, SCRIPT);
    this.prefix = prefix;
    this.fallback = fallback;
  }

  @Override
  public Future<TokenBucket.Decision> tryAcquire(String accessKey, RateLimitSpec spec) {
    return script.run(List.of(prefix + "rate:" + accessKey),
            List.of(Double.toString(spec.ratePerSecond()), Double.toString(spec.burst())))
        .map(r -> new TokenBucket.Decision(r.get(0).toInteger() == 1, r.get(1).toLong()))
        .recover(e -> {
          LOG.log(Level.FINE, "Redis rate limiter unavailable; using this node's bucket", e);
          return fallback.tryAcquire(accessKey, spec);
        });
  }
}
