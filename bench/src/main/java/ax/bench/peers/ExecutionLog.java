package ax.bench.peers;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Inside a peer JVM: what the no-op task bodies of one phase saw. A body calls {@link #executed(int)}
 * with its task index; the first call's {@code System.currentTimeMillis()} is kept, and every call is
 * counted so duplicates show. Lock-free: bodies run on the peer's worker threads.
 */
public final class ExecutionLog {
  private final Schedule schedule;
  private final AtomicLongArray firstMs;
  private final AtomicIntegerArray count;
  private final java.util.concurrent.atomic.AtomicLong distinct = new java.util.concurrent.atomic.AtomicLong();

  public ExecutionLog(Schedule schedule) {
    this.schedule = schedule;
    this.firstMs = new AtomicLongArray(schedule.n());
    this.count = new AtomicIntegerArray(schedule.n());
  }

  public void executed(int i) {
    executed(i, System.currentTimeMillis());
  }

  /** Task {@code i} started at {@code atMs}, as another process on this machine saw it. */
  public void executed(int i, long atMs) {
    if (count.getAndIncrement(i) == 0) {
      firstMs.set(i, atMs);
      distinct.incrementAndGet();
    }
  }

  public long distinct() {
    return distinct.get();
  }

  /** Lateness = first execution − intended trigger time, both on this machine's clock. */
  public Outcome outcome() {
    var h = Outcome.newHistogram();
    long executed = 0;
    long duplicates = 0;
    long early = 0;
    long maxEarly = 0;
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (int i = 0; i < schedule.n(); i++) {
      int c = count.get(i);
      if (c == 0) {
        continue;
      }
      executed++;
      duplicates += c - 1;
      long at = firstMs.get(i);
      long late = at - schedule.trigger(i);
      if (late < 0) {
        early++;
        maxEarly = Math.max(maxEarly, -late);
      } else {
        h.recordValue(Math.min(late, h.getHighestTrackableValue()));
      }
      first = Math.min(first, at);
      last = Math.max(last, at);
    }
    return new Outcome(h, schedule.n(), executed, duplicates, early, maxEarly, executed == 0 ? 0 : first,
        executed == 0 ? 0 : last);
  }
}
