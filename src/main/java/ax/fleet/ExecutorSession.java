package ax.fleet;

import java.util.Map;
import java.util.Set;

/**
 * One registered executor session as the leader sees it. Mutable, owned by {@link ExecutorRegistry}
 * (one event loop). {@code outstanding} is the leader's own count of tasks handed to this executor and
 * not yet reported — exact between heartbeats, unlike the executor's last report.
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
  int outstanding;
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

  public int outstanding() {
    return outstanding;
  }

  /**
   * Slots the executor can take now: workers plus its bounded buffer, minus what we already handed it.
   * This is the "free threads" of R6's weight: an executor acks into its buffer, so a full buffer — not
   * busy workers — is what must stop dispatch.
   */
  public int freeSlots() {
    return Math.max(0, threads + buffer - outstanding);
  }

  /** Tasks handed over beyond the workers: they wait in the executor's buffer. */
  public int backlog() {
    return Math.max(Math.max(0, outstanding - threads), reportedBacklog);
  }

  public boolean takesWork() {
    return state == State.LIVE && !stalled;
  }

  public ExecutorView view(String processor) {
    boolean available = takesWork() && processors.contains(processor) && freeSlots() > 0;
    return new ExecutorView(executorId, zone, freeSlots(), backlog(), cpuLoad, available);
  }

  public void handedOver(int tasks) {
    outstanding += tasks;
  }

  public void settled(int tasks) {
    outstanding = Math.max(0, outstanding - tasks);
  }

  public void markStalled() {
    stalled = true;
  }

  /** For /health: what the executor reported and what the leader counts. */
  public io.vertx.core.json.JsonObject describe(long nowMs) {
    return new io.vertx.core.json.JsonObject()
        .put("executor_id", executorId).put("session", session).put("state", state.name())
        .put("zone", zone).put("processors", new io.vertx.core.json.JsonArray(processors.stream().sorted().toList()))
        .put("threads", threads).put("buffer", buffer).put("outstanding", outstanding)
        .put("free_threads", reportedFreeThreads).put("backlog", reportedBacklog).put("cpu_load", cpuLoad)
        .put("executed", executed).put("failed", failed).put("mean_duration_ms", meanDurationMs)
        .put("last_heartbeat_ms_ago", nowMs - lastHeartbeatMs);
  }
}
