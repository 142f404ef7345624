package ax.api.auth;

import io.vertx.core.Future;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Nonces of this process. Entries expire after the window; a sweep runs when the map grows, and a hard
 * cap answers "unavailable" rather than growing without bound (a flood of signed requests could
 * otherwise exhaust memory) — the client may retry with a new nonce.
 */
public final class InMemoryNonceStore implements NonceStore {
  private static final int MAX_ENTRIES = 2_000_000;
  private final Map<String, Long> expiries = new ConcurrentHashMap<>();
  /** When this store's memory began (this process), on the database clock. */
  private final long memorySinceMs;
  private volatile long nextSweepAt;

  /** @param nowMs the database clock's time now: the store remembers nothing signed before it */
  public InMemoryNonceStore(long nowMs) {
    this.memorySinceMs = nowMs;
  }

  @Override
  public Future<Boolean> firstUse(String accessKey, String nonce, long signedAtMs, long ttlMs) {
    if (signedAtMs < memorySinceMs) {
      return Future.succeededFuture(false); // maybe used before this process started: refuse
    }
    long now = System.nanoTime();
    if (expiries.size() > 100_000 && now - nextSweepAt > 0) {
      nextSweepAt = now + 1_000_000_000L;
      expiries.values().removeIf(expiry -> expiry - now < 0);
    }
    if (expiries.size() >= MAX_ENTRIES) {
      return Future.failedFuture(new IllegalStateException("nonce cache full"));
    }
    long expiry = now + ttlMs * 1_000_000L;
    String key = accessKey + '\n' + nonce;
    Long previous = expiries.putIfAbsent(key, expiry);
    if (previous == null) {
      return Future.succeededFuture(true);
    }
    if (previous - now < 0 && expiries.replace(key, previous, expiry)) {
      return Future.succeededFuture(true); // an expired entry not yet swept
    }
    return Future.succeededFuture(false);
  }
}
