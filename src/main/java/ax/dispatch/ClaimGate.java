package ax.dispatch;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Lets a graceful stop close claiming before the lease is resigned, and tells it when the claim
 * statements already sent have answered. A claim whose answer arrives after the term ended is dropped
 * (its rows stay RUNNING under the old epoch until the successor's recovery fires them again, ~2 s late
 * in RollingRestartIT), so the stop resigns only once none is in flight; what it claimed is then called
 * and written during the drain like any call in flight. Shared by every dispatcher instance of a node
 * (they run on different event loops).
 */
public final class ClaimGate {
  private final AtomicBoolean open = new AtomicBoolean(true);
  private final AtomicInteger inFlight = new AtomicInteger();

  /** Counts a claim about to be sent, or answers false once the gate is closed (send nothing then). */
  public boolean tryStart() {
    if (!open.get()) {
      return false;
    }
    inFlight.incrementAndGet();
    if (!open.get()) { // closed meanwhile: the stop may already have seen 0 in flight
      inFlight.decrementAndGet();
      return false;
    }
    return true;
  }

  /** The claim's statement answered (success or failure), whatever became of the term meanwhile. */
  public void finished() {
    inFlight.decrementAndGet();
  }

  public void close() {
    open.set(false);
  }

  public boolean isOpen() {
    return open.get();
  }

  public int inFlight() {
    return inFlight.get();
  }
}
