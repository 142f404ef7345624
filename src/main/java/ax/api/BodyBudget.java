package ax.api;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of request bodies this node holds at once, across all connections. A body is admitted only
 * if its size (declared, or the endpoint's limit for a chunked one) fits what is left, and is given back
 * when its request ends — so no number of slow or hostile clients can buffer more than the budget.
 * Thread-safe: every API event loop shares one.
 */
public final class BodyBudget {
  private final long capacity;
  private final AtomicLong used = new AtomicLong();

  public BodyBudget(long capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be ≥ 1, was " + capacity);
    }
    this.capacity = capacity;
  }

  /** A quarter of the heap, at most 256 MiB: bodies may take a share of memory, never all of it. */
  public static BodyBudget forThisJvm() {
    return new BodyBudget(Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 4));
  }

  /** Takes {@code bytes} if they fit; false when the node holds too much already. */
  boolean tryReserve(long bytes) {
    while (true) {
      long now = used.get();
      if (now + bytes > capacity) {
        return false;
      }
      if (used.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  void release(long bytes) {
    used.addAndGet(-bytes);
  }

  public long capacity() {
    return capacity;
  }

  public long used() {
    return used.get();
  }
}
