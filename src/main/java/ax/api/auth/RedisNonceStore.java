package ax.api.auth;

import io.vertx.core.Future;
import io.vertx.redis.client.RedisAPI;

import java.util.List;

/**
 * Nonces shared by every node through Redis ({@code SET key 1 NX PX ttl}). When Redis is unreachable
 * the check fails and the request is answered 503: ax never lets a request in without a replay check.
 */
public final class RedisNonceStore implements NonceStore {
  private final RedisAPI redis;
  private final String prefix;

  public RedisNonceStore(RedisAPI redis, String prefix) {
    this.redis = redis;
    this.prefix = prefix;
  }

  @Override
  public Future<Boolean> firstUse(String accessKey, String nonce, long ttlMs) {
    String key = prefix + "nonce:" + accessKey + ":" + nonce;
    // A SET NX that sets nothing succeeds with a null response.
    return redis.set(List.of(key, "1", "NX", "PX", Long.toString(ttlMs))).map(r -> r != null);
  }
}
