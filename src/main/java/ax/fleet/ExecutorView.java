package ax.fleet;

import java.util.Objects;

/**
 * What the selection strategies know about one executor session, taken from its latest heartbeat.
 * A plain value: the fleet registry (owned by the dispatch side) builds a fresh list per choice, so
 * strategies never see it change under them.
 *
 * @param executorId  the executor's id (the JWT subject)
 * @param zone        where it runs; null when it did not say
 * @param freeThreads idle workers over all pools
 * @param backlog     acked tasks waiting for a worker
 * @param cpuLoad     system load / cores, 0..1 and above when overloaded
 * @param available   LIVE (not SUSPECT, OFFLINE or draining) and serves the task's processor
 */
public record ExecutorView(
    String executorId, String zone, int freeThreads, int backlog, double cpuLoad, boolean available) {

  public ExecutorView {
    Objects.requireNonNull(executorId, "executorId");
    if (freeThreads < 0 || backlog < 0) {
      throw new IllegalArgumentException(
          "freeThreads and backlog must not be negative, were " + freeThreads + " and " + backlog);
    }
    if (!(cpuLoad >= 0) || Double.isInfinite(cpuLoad)) {
      throw new IllegalArgumentException("cpuLoad must be a finite number >= 0, was " + cpuLoad);
    }
  }

  /**
   * R6: {@code free_threads / (backlog + 1)}. An executor with a queue gets less even when it has idle
   * threads, because those threads will soon pick up its own backlog. Zero with no free thread.
   */
  public double weight() {
    return freeThreads / (backlog + 1.0);
  }

  /** Whether a task may be sent here now: never force work on a busy or unavailable executor. */
  public boolean canTakeWork() {
    return available && freeThreads > 0;
  }

  boolean inZone(String preferredZone) {
    return preferredZone != null && preferredZone.equals(zone);
  }
}
