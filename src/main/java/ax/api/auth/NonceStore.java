package ax.api.auth;

import io.vertx.core.Future;

/**
 * Remembers nonces per access key for the signature window, so a captured request cannot be replayed.
 * In-process on a single node ({@link InMemoryNonceStore}); shared through Redis when AX_REDIS_URL is
 * set ({@link RedisNonceStore}).
 */
public interface NonceStore {
  /** True the first time (key, nonce) is seen within {@code ttlMs}; false for a replay. */
  Future<Boolean> firstUse(String accessKey, String nonce, long ttlMs);
}
