package ax.fleet;

import java.util.Map;
import java.util.Set;

/**
 * One registered executor session as the leader sees it: what it registered and what its last heartbeat
 * said. Mutable, owned by {@link ExecutorRegistry} (one event loop). How many tasks the leader has handed
 * to the executor and not yet heard back about ("outstanding") is not kept here but by the executor
 * dispatch, which passes it in: that count is exact between heartbeats, unlike the executor's report.
 */
public final class ExecutorSession {
  public enum State { REGISTERED, LIVE, SUSPECT, DRAINING }

  private final String executorId;
  private final String session;
  private final Set<String> processors;
  private final Map<String, Integer> capacity;
  private final int threads;
  private final int buffer;
  private final String zone;

  State state = State.REGISTERED;
  long lastHeartbeatMs;
  int reportedFreeThreads;
  int reportedBacklog;
  double cpuLoad;
  long executed;
  long failed;
  double meanDurationMs;
  /** Set when a dispatch went unanswered; cleared by the next heartbeat. */
  boolean stalled;

  ExecutorSession(String executorId, String session, Set<String> processors, Map<String, Integer> capacity,
                  int buffer, String zone, long nowMs) {
    this.executorId = executorId;
    this.session = session;
    this.processors = Set.copyOf(processors);
    this.capacity = Map.copyOf(capacity);
    this.threads = capacity.values().stream().mapToInt(Integer::intValue).sum();
    this.buffer = buffer;
    this.zone = zone;
    this.lastHeartbeatMs = nowMs;
  }

  public String executorId() {
    return executorId;
  }

  public String session() {
    return session;
  }

  public Set<String> processors() {
    return processors;
  }

  public Map<String, Integer> capacity() {
    return capacity;
  }

  public String zone() {
    return zone;
  }

  public State state() {
    return state;
  }

  /** Worker threads over all pools. */
  public int threads() {
    return threads;
  }

  /** Acked tasks the executor can hold beyond its running ones. */
  public int buffer() {
    return buffer;
  }

  /**
   * Slots the executor can take now: workers plus its bounded buffer, minus what we already handed it.
   * This is the "free threads" of R6's weight: an executor acks into its buffer, so a full buffer — not
   * busy workers — is what must stop dispatch.
   */
  public int freeSlots(int outstanding) {
    return Math.max(0, threads + buffer - outstanding);
  }

  /** Tasks handed over beyond the workers: they wait in the executor's buffer. */
  public int backlog(int outstanding) {
    return Math.max(Math.max(0, outstanding - threads), reportedBacklog);
  }

  public long lastHeartbeatMs() {
    return lastHeartbeatMs;
  }

  public int reportedFreeThreads() {
    return reportedFreeThreads;
  }

  public int reportedBacklog() {
    return reportedBacklog;
  }

  public double cpuLoad() {
    return cpuLoad;
  }

  public long executed() {
    return executed;
  }

  public long failed() {
    return failed;
  }

  public double meanDurationMs() {
    return meanDurationMs;
  }

  public boolean takesWork() {
    return state == State.LIVE && !stalled;
  }

  public ExecutorView view(String processor, int outstanding) {
    int free = freeSlots(outstanding);
    boolean available = takesWork() && processors.contains(processor) && free > 0;
    return new ExecutorView(executorId, zone, free, backlog(outstanding), cpuLoad, available);
  }

  public void markStalled() {
    stalled = true;
  }
}
