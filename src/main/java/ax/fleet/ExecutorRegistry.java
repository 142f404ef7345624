package ax.fleet;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.ToIntFunction;

/**
 * The leader's table of executor sessions and R6's health rules, with time passed in (pure, testable):
 * 3 missed heartbeats → SUSPECT (no new work), one more → OFFLINE (removed; the caller hands the
 * executor's tasks to the retry policy). While the caller is doing that, the executor id is
 * "quarantined": it may not register again until its old tasks are settled, so a task of the new
 * session can never be mistaken for an orphan of the old one.
 */
public final class ExecutorRegistry {
  /** The first heartbeat counts as missed once this many intervals passed without one. */
  public static final int SUSPECT_AFTER_MISSED = 3;
  public static final int OFFLINE_AFTER_MISSED = 4;

  private final long heartbeatMs;
  private final Map<String, ExecutorSession> sessions = new HashMap<>();
  private final Set<String> quarantined = new HashSet<>();
  /** Heartbeats count as missed only from here on: see {@link #notWatchedUntil}. */
  private long watchingSinceMs = Long.MIN_VALUE;

  public ExecutorRegistry(long heartbeatMs) {
    this.heartbeatMs = heartbeatMs;
  }

  /** What a registration asked for, already validated by the message parser. */
  public record Registration(String executorId, Set<String> processors, Map<String, Integer> capacity, int buffer,
                             String zone) {
  }

  public enum Refusal { QUARANTINED }

  /**
   * Starts a new session, replacing any previous one of the same executor (a reconnect). Tasks the old
   * session holds keep their executor id, so its results are still accepted.
   */
  public Result<ExecutorSession> register(Registration r, long nowMs) {
    if (quarantined.contains(r.executorId())) {
      return Result.refused(Refusal.QUARANTINED);
    }
    ExecutorSession s = new ExecutorSession(r.executorId(), UUID.randomUUID().toString(), r.processors(),
        r.capacity(), r.buffer(), r.zone(), nowMs);
    sessions.put(r.executorId(), s);
    return Result.ok(s);
  }

  /** Applies a heartbeat; empty when the session is unknown (OFFLINE, replaced, or a new leader). */
  public Optional<ExecutorSession> heartbeat(String executorId, String session, Load load, long nowMs) {
    ExecutorSession s = sessions.get(executorId);
    if (s == null || !s.session().equals(session)) {
      return Optional.empty();
    }
    s.lastHeartbeatMs = nowMs;
    s.stalled = false;
    if (s.state == ExecutorSession.State.REGISTERED || s.state == ExecutorSession.State.SUSPECT) {
      s.state = ExecutorSession.State.LIVE;
    }
    s.reportedFreeThreads = load.freeThreads();
    s.reportedBacklog = load.backlog();
    s.cpuLoad = load.cpuLoad();
    s.executed = load.executed();
    s.failed = load.failed();
    s.meanDurationMs = load.meanDurationMs();
    return Optional.of(s);
  }

  /** The load figures of a heartbeat. */
  public record Load(int freeThreads, int backlog, double cpuLoad, long executed, long failed, double meanDurationMs) {
  }

  public Optional<ExecutorSession> find(String executorId) {
    return Optional.ofNullable(sessions.get(executorId));
  }

  public Optional<ExecutorSession> find(String executorId, String session) {
    ExecutorSession s = sessions.get(executorId);
    return s != null && s.session().equals(session) ? Optional.of(s) : Optional.empty();
  }

  /** Stops sending work to the session; it finishes what it holds. */
  public boolean drain(String executorId, String session) {
    Optional<ExecutorSession> s = find(executorId, session);
    s.ifPresent(x -> x.state = ExecutorSession.State.DRAINING);
    return s.isPresent();
  }

  /** The session says it is done: it leaves without its tasks being treated as lost. */
  public boolean leave(String executorId, String session) {
    Optional<ExecutorSession> s = find(executorId, session);
    s.ifPresent(x -> sessions.remove(executorId));
    return s.isPresent();
  }

  /**
   * This node was not running until {@code nowMs} (a GC pause, a stopped or starved process): heartbeats
   * the executors sent meanwhile are still queued, unread, so the time before now says nothing about them.
   * Missed heartbeats are counted from now on; an executor that did die meanwhile is declared OFFLINE
   * {@link #OFFLINE_AFTER_MISSED} intervals later instead of at once.
   */
  public void notWatchedUntil(long nowMs) {
    watchingSinceMs = Math.max(watchingSinceMs, nowMs);
  }

  /** Outcome of a {@link #sweep}: sessions that just turned SUSPECT, and those declared OFFLINE. */
  public record Sweep(List<ExecutorSession> suspect, List<ExecutorSession> offline) {
  }

  /**
   * Applies the missed-heartbeat rules. OFFLINE sessions are removed and their executor ids
   * quarantined until {@link #released}.
   */
  public Sweep sweep(long nowMs) {
    List<ExecutorSession> suspect = new ArrayList<>();
    List<ExecutorSession> offline = new ArrayList<>();
    for (ExecutorSession s : List.copyOf(sessions.values())) {
      long missed = (nowMs - Math.max(s.lastHeartbeatMs, watchingSinceMs)) / heartbeatMs;
      if (missed >= OFFLINE_AFTER_MISSED) {
        sessions.remove(s.executorId());
        quarantined.add(s.executorId());
        offline.add(s);
      } else if (missed >= SUSPECT_AFTER_MISSED && s.state != ExecutorSession.State.SUSPECT
          && s.state != ExecutorSession.State.DRAINING) {
        s.state = ExecutorSession.State.SUSPECT;
        suspect.add(s);
      }
    }
    return new Sweep(suspect, offline);
  }

  /** The OFFLINE executor's tasks are settled: it may register again. */
  public void released(String executorId) {
    quarantined.remove(executorId);
  }

  /**
   * Views of the sessions serving {@code processor}, for a selector.
   *
   * @param outstanding tasks handed to an executor (by id) and not yet settled
   */
  public List<ExecutorView> candidates(String processor, ToIntFunction<String> outstanding) {
    List<ExecutorView> out = new ArrayList<>();
    for (ExecutorSession s : sessions.values()) {
      if (s.processors().contains(processor)) {
        out.add(s.view(processor, outstanding.applyAsInt(s.executorId())));
      }
    }
    return out;
  }

  /** Processors served by sessions that take work now. */
  public Set<String> servedProcessors() {
    Set<String> out = new HashSet<>();
    for (ExecutorSession s : sessions.values()) {
      if (s.takesWork()) {
        out.addAll(s.processors());
      }
    }
    return out;
  }

  /** How many executors are in each state; {@code offline} are those whose tasks are still being settled. */
  public record Census(int registered, int live, int suspect, int draining, int offline) {
    public static final Census NONE = new Census(0, 0, 0, 0, 0);
  }

  public Census census() {
    int[] n = new int[ExecutorSession.State.values().length];
    for (ExecutorSession s : sessions.values()) {
      n[s.state().ordinal()]++;
    }
    return new Census(n[ExecutorSession.State.REGISTERED.ordinal()], n[ExecutorSession.State.LIVE.ordinal()],
        n[ExecutorSession.State.SUSPECT.ordinal()], n[ExecutorSession.State.DRAINING.ordinal()], quarantined.size());
  }

  public Collection<ExecutorSession> sessions() {
    return sessions.values();
  }

  /** A value or the reason it was refused. */
  public record Result<T>(T value, Refusal refusal) {
    static <T> Result<T> ok(T v) {
      return new Result<>(v, null);
    }

    static <T> Result<T> refused(Refusal r) {
      return new Result<>(null, r);
    }

    public boolean ok() {
      return refusal == null;
    }
  }
}
