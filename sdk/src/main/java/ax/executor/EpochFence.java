package ax.executor;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Remembers the highest leader epoch seen (in dispatches and in register/heartbeat answers). A dispatch
 * with a lower epoch comes from a deposed leader that has not noticed yet; running it could duplicate
 * work the new leader re-dispatched, so it is rejected whole.
 */
final class EpochFence {
  private final AtomicLong highest = new AtomicLong(Long.MIN_VALUE);

  /** True when {@code epoch} is not below the highest seen; raises the highest to it. */
  boolean admit(long epoch) {
    return highest.accumulateAndGet(epoch, Math::max) == epoch;
  }

  void observe(long epoch) {
    highest.accumulateAndGet(epoch, Math::max);
  }

  long highest() {
    return highest.get();
  }
}
