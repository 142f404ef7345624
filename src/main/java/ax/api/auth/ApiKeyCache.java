package ax.api.auth;

import ax.store.ApiKeyStore;
import ax.store.ApiKeyStore.ApiKey;
import io.vertx.core.Future;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Access keys by name, cached for a short time so signature checks and outbound signing do not hit
 * PostgreSQL per request. Unknown keys are cached too (briefly), so a flood of made-up keys costs one
 * query per key rather than one per request. Thread-safe; shared by every verticle of a node.
 *
 * <p>The time limits are a backstop only: an administrative change of a key evicts it on every node at
 * once ({@link #evict}, called on the change's announcement — see KeyChangesVerticle), so a disabled key
 * is refused within a second, not after 30 s; a newly created key is not refused for the miss's 5 s.
 */
public final class ApiKeyCache {
  private static final long HIT_TTL_NANOS = 30_000_000_000L;
  private static final long MISS_TTL_NANOS = 5_000_000_000L;
  private static final int MAX_ENTRIES = 100_000;

  private record Entry(Optional<ApiKey> key, long expiresAtNanos) {
  }

  private final ApiKeyStore store;
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();

  public ApiKeyCache(ApiKeyStore store) {
    this.store = store;
  }

  /** The key whatever its state: callers check {@link ApiKey#acceptsRequests()} before admitting a request. */
  public Future<Optional<ApiKey>> find(String accessKey) {
    long now = System.nanoTime();
    Entry e = entries.get(accessKey);
    if (e != null && e.expiresAtNanos() - now > 0) {
      return Future.succeededFuture(e.key());
    }
    return store.find(accessKey).map(found -> {
      if (entries.size() >= MAX_ENTRIES) {
        entries.clear();
      }
      entries.put(accessKey, new Entry(found, now + (found.isPresent() ? HIT_TTL_NANOS : MISS_TTL_NANOS)));
      return found;
    });
  }

  /** Forgets one key: the next use reads it again. */
  public void evict(String accessKey) {
    entries.remove(accessKey);
  }

  /** Forgets every key (after a gap in the announcements of changes, which may have missed some). */
  public void evictAll() {
    entries.clear();
  }
}
