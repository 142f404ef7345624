package ax.api.auth;

import io.vertx.core.Future;

/**
 * Remembers nonces per access key for the signature window, so a captured request cannot be replayed.
 * In-process on a single node ({@link InMemoryNonceStore}); shared through Redis when AX_REDIS_URL is
 * set ({@link RedisNonceStore}).
 */
public interface NonceStore {
  /**
   * True the first time (key, nonce) is seen within {@code ttlMs}; false for a replay — and false as
   * well for a request signed before this store's memory began ({@code signedAtMs}, the request's
   * timestamp): a store that restarted empty cannot tell whether it saw that nonce, and must not reopen
   * the signature window to replays.
   */
  Future<Boolean> firstUse(String accessKey, String nonce, long signedAtMs, long ttlMs);
}
