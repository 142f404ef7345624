package ax.executor;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Capacity accounting for acked work: a task holds one permit from the moment its dispatch is acked
 * until its handler returns. The limit is all worker threads plus ONE buffer shared by the pools, so the
 * executor never acks more than it can hold, whichever pool the tasks are for; what does not fit is
 * rejected and goes back to the scheduler instead of waiting here.
 *
 * <p>Acquired on the event loop, released on worker threads, hence the CAS loop.
 */
final class Admission {
  private final int limit;
  private final AtomicInteger inflight = new AtomicInteger();

  Admission(int threads, int buffer) {
    if (threads < 1 || buffer < 0) {
      throw new IllegalArgumentException("threads must be ≥ 1 and buffer ≥ 0");
    }
    this.limit = threads + buffer;
  }

  /** Takes a permit if {@code inflight < threads + buffer}. */
  boolean tryAcquire() {
    while (true) {
      int now = inflight.get();
      if (now >= limit) {
        return false;
      }
      if (inflight.compareAndSet(now, now + 1)) {
        return true;
      }
    }
  }

  void release() {
    if (inflight.decrementAndGet() < 0) {
      inflight.incrementAndGet();
      throw new IllegalStateException("released more permits than were acquired");
    }
  }

  /** Running plus buffered tasks. */
  int inflight() {
    return inflight.get();
  }

  int limit() {
    return limit;
  }
}
