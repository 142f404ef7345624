package ax.api.auth;

import ax.redis.RedisScript;
import io.vertx.core.Future;
import io.vertx.redis.client.RedisAPI;

import java.util.List;
import java.util.function.LongSupplier;

/**
 * Nonces shared by every node through Redis, checked in one atomic script: the first use of
 * (key, nonce) within the window sets it, a repeat is a replay. Redis keeps nothing on disk here, so
 * a restart wipes every nonce: the script also keeps the time its memory began ({@code nonce:since})
 * and refuses requests signed before that. Every node sets that mark when it starts and, if it is
 * missing, every second ({@link #markMemoryStart}), so after Redis comes back empty only requests
 * signed in about that second are refused beyond the replays. When Redis is unreachable the check
 * fails and the request is answered 503: ax never lets a request in without a replay check.
 */
public final class RedisNonceStore implements NonceStore {
  // KEYS[1] nonce, KEYS[2] memory start; ARGV ttl_ms, now_ms, signed_at_ms.
  // Returns 1 first use, 0 replay, -1 signed before this memory began.
  static final String SCRIPT = """
      local since = redis.call('GET', KEYS[2])
      if not since then
        redis.call('SET', KEYS[2], ARGV[2])
        since = ARGV[2]
      end
      if tonumber(ARGV[3]) < tonumber(since) then return -1 end
      if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return 1 end
      return 0
      """;

  private static final String MARK = "redis.call('SET', KEYS[1], ARGV[1], 'NX') return 1";

  private final RedisScript script;
  private final RedisScript mark;
  private final String prefix;
  private final LongSupplier clock;

  /** @param clock the database clock's milliseconds, the same time requests are signed against */
  public RedisNonceStore(RedisAPI redis, String prefix, LongSupplier clock) {
    this.script = new RedisScript(redis, SCRIPT);
    this.mark = new RedisScript(redis, MARK);
    this.prefix = prefix;
    this.clock = clock;
  }

  /** Sets the memory-start mark to now if Redis has none (it started empty); a no-op otherwise. */
  public Future<Void> markMemoryStart() {
    return mark.run(List.of(prefix + "nonce:since"), List.of(Long.toString(clock.getAsLong()))).mapEmpty();
  }

  @Override
  public Future<Boolean> firstUse(String accessKey, String nonce, long signedAtMs, long ttlMs) {
    return script.run(List.of(prefix + "nonce:" + accessKey + ":" + nonce, prefix + "nonce:since"),
            List.of(Long.toString(ttlMs), Long.toString(clock.getAsLong()), Long.toString(signedAtMs)))
        .map(r -> r.toInteger() == 1);
  }
}
