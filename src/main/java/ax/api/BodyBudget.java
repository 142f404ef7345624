package ax.api;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of request bodies this node holds at once, across all connections. A body is admitted only
 * if its size (declared, or the endpoint's limit for a chunked one) fits what is left, and is given back
 * when its request ends — so no number of slow or hostile clients can buffer more than the budget.
 *
 * <p>A body is read before its signature can be checked (the signature covers the body's hash), so a
 * client that knows an access key but not its secret can make the node hold bodies. One access key may
 * hold at most a quarter of the budget: such a client can slow down that key's own submissions, not
 * every tenant's. Thread-safe: every API event loop shares one.
 */
public final class BodyBudget {
  private final long capacity;
  private final long perKey;
  private final AtomicLong used = new AtomicLong();
  private final Map<String, AtomicLong> usedByKey = new ConcurrentHashMap<>();

  public BodyBudget(long capacity) {
    if (capacity < 4) {
      throw new IllegalArgumentException("capacity must be ≥ 4, was " + capacity);
    }
    this.capacity = capacity;
    this.perKey = capacity / 4;
  }

  /** A quarter of the heap, at most 256 MiB: bodies may take a share of memory, never all of it. */
  public static BodyBudget forThisJvm() {
    return new BodyBudget(Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 4));
  }

  /** Takes {@code bytes} for {@code accessKey} if they fit both its share and the whole; false otherwise. */
  boolean tryReserve(String accessKey, long bytes) {
    AtomicLong mine = usedByKey.computeIfAbsent(accessKey, k -> new AtomicLong());
    if (!take(mine, bytes, perKey)) {
      return false;
    }
    if (!take(used, bytes, capacity)) {
      mine.addAndGet(-bytes);
      return false;
    }
    return true;
  }

  void release(String accessKey, long bytes) {
    used.addAndGet(-bytes);
    AtomicLong mine = usedByKey.get(accessKey);
    if (mine != null && mine.addAndGet(-bytes) == 0) {
      usedByKey.remove(accessKey, mine); // a racing reserve re-creates it; a stale zero entry is harmless
    }
  }

  private static boolean take(AtomicLong counter, long bytes, long limit) {
    while (true) {
      long now = counter.get();
      if (now + bytes > limit) {
        return false;
      }
      if (counter.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  public long capacity() {
    return capacity;
  }

  /** The most one access key may hold. */
  public long perKey() {
    return perKey;
  }

  public long used() {
    return used.get();
  }
}
