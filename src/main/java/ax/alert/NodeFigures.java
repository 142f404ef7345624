package ax.alert;

import java.util.HashMap;
import java.util.Map;

/**
 * What one node's meters say, as totals since it started or as the change since its last report:
 * attempt outcomes, tasks failing twice by target, executors gone OFFLINE, hand-over lateness as
 * histogram bucket counts, and two gauges (its clock offset, the webhook backlog it counted). Each node
 * sends its changes to the leader every evaluation interval; the leader adds them up
 * ({@link FigureWindow}). Counters add across nodes, so cluster-wide rates need no database reads.
 *
 * @param delayBuckets hand-overs per lateness bucket: index i counts those ≤ {@link #DELAY_BOUNDS_MS}[i]
 *                     and above the bound before; the last index those above every bound
 */
public record NodeFigures(String nodeId, long success, long failure, long timeout, Map<String, Long> failedTwice,
                          long executorsOffline, long[] delayBuckets, double clockOffsetMs, long webhookBacklog) {
  /** Lateness bucket bounds (ms), the histogram's of {@code ax_schedule_delay_seconds}. */
  public static final long[] DELAY_BOUNDS_MS = {1, 2, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_000, 2_500, 5_000,
      10_000, 30_000, 60_000};

  public NodeFigures {
    failedTwice = Map.copyOf(failedTwice);
    delayBuckets = delayBuckets.clone();
    if (delayBuckets.length != DELAY_BOUNDS_MS.length + 1) {
      throw new IllegalArgumentException("expected " + (DELAY_BOUNDS_MS.length + 1) + " delay buckets");
    }
  }

  public static NodeFigures zero(String nodeId) {
    return new NodeFigures(nodeId, 0, 0, 0, Map.of(), 0, new long[DELAY_BOUNDS_MS.length + 1], 0, 0);
  }

  /** The counters' change since {@code earlier} (totals of the same node); the gauges as they are now. */
  public NodeFigures minus(NodeFigures earlier) {
    Map<String, Long> twice = new HashMap<>();
    failedTwice.forEach((k, v) -> {
      long d = v - earlier.failedTwice.getOrDefault(k, 0L);
      if (d != 0) {
        twice.put(k, d);
      }
    });
    long[] buckets = new long[delayBuckets.length];
    for (int i = 0; i < buckets.length; i++) {
      buckets[i] = delayBuckets[i] - earlier.delayBuckets[i];
    }
    return new NodeFigures(nodeId, success - earlier.success, failure - earlier.failure, timeout - earlier.timeout,
        twice, executorsOffline - earlier.executorsOffline, buckets, clockOffsetMs, webhookBacklog);
  }

  /** Counters added (the gauges of {@code this}): used to sum the window. */
  public NodeFigures plus(NodeFigures other) {
    Map<String, Long> twice = new HashMap<>(failedTwice);
    other.failedTwice.forEach((k, v) -> twice.merge(k, v, Long::sum));
    long[] buckets = delayBuckets.clone();
    for (int i = 0; i < buckets.length; i++) {
      buckets[i] += other.delayBuckets[i];
    }
    return new NodeFigures(nodeId, success + other.success, failure + other.failure, timeout + other.timeout, twice,
        executorsOffline + other.executorsOffline, buckets, clockOffsetMs, webhookBacklog);
  }

  public long attempts() {
    return success + failure + timeout;
  }

  public long handOvers() {
    long n = 0;
    for (long b : delayBuckets) {
      n += b;
    }
    return n;
  }

  /**
   * The {@code q} quantile of lateness (ms), interpolated inside its bucket as PromQL's
   * {@code histogram_quantile} does (above the last bound: the last bound). NaN with no hand-overs.
   */
  public double delayQuantileMs(double q) {
    long total = handOvers();
    if (total == 0) {
      return Double.NaN;
    }
    double rank = q * total;
    long cumulative = 0;
    for (int i = 0; i < delayBuckets.length; i++) {
      long before = cumulative;
      cumulative += delayBuckets[i];
      if (cumulative >= rank && delayBuckets[i] > 0) {
        if (i == DELAY_BOUNDS_MS.length) {
          return DELAY_BOUNDS_MS[i - 1];
        }
        double lower = i == 0 ? 0 : DELAY_BOUNDS_MS[i - 1];
        double upper = DELAY_BOUNDS_MS[i];
        return lower + (upper - lower) * (rank - before) / delayBuckets[i];
      }
    }
    return DELAY_BOUNDS_MS[DELAY_BOUNDS_MS.length - 1];
  }
}
