package ax.executor;

import java.util.concurrent.atomic.LongAdder;

/** Counters since the executor started; written from worker threads and the event loop. */
public final class ExecutorStats {
  private final LongAdder executed = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder durationMs = new LongAdder();
  private final LongAdder deduplicated = new LongAdder();
  private final LongAdder rejected = new LongAdder();
  private final LongAdder applied = new LongAdder();
  private final LongAdder refused = new LongAdder();

  /**
   * A consistent-enough copy for heartbeats and summaries. {@code executed} counts every finished run,
   * {@code failed} the part of them that failed; dedupe hits and rejections are not runs.
   */
  public record Snapshot(long executed, long failed, double meanDurationMs, long deduplicated, long rejected,
                         long applied, long refused) {
  }

  void executed(TaskResult result) {
    executed.increment();
    durationMs.add(result.durationMs());
    if (result.status() == TaskResult.Status.FAILED) {
      failed.increment();
    }
  }

  void deduplicated() {
    deduplicated.increment();
  }

  void rejected(int n) {
    rejected.add(n);
  }

  void applied(int n) {
    applied.add(n);
  }

  void refused(int n) {
    refused.add(n);
  }

  public Snapshot snapshot() {
    long n = executed.sum();
    double mean = n == 0 ? 0 : Math.round(durationMs.sum() * 10.0 / n) / 10.0;
    return new Snapshot(n, failed.sum(), mean, deduplicated.sum(), rejected.sum(), applied.sum(), refused.sum());
  }
}
