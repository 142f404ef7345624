package ax.bus;

/**
 * Every event-bus address ax uses, in one place, shared by senders and receivers (and, later, by the
 * bridge's permitted-address lists). Messages named "local" carry Java objects through
 * {@link LocalCodec} and never leave the JVM.
 */
public final class Addresses {
  private Addresses() {
  }

  /** {@link TaskBatch} (local): tasks to hold in the timing wheel (new, retried or recovered). */
  public static final String WHEEL_SCHEDULE = "ax.wheel.schedule";

  /** Long task id (local): drop a task from the wheel after it was cancelled in the database. */
  public static final String WHEEL_CANCEL = "ax.wheel.cancel";

  /** Request, no body (local): the wheel's counters as JSON, for /health. */
  public static final String WHEEL_STATS = "ax.wheel.stats";

  /**
   * Request, Long horizon in ms (local): a leader's graceful stop asks its wheel to have everything due
   * within the horizon claimed now (through {@link #DISPATCH_HAND_OVER}), so the stopping node calls those
   * tasks itself at their trigger times while a successor takes over; answers with how many were fired
   * once every claim answered.
   */
  public static final String WHEEL_HAND_OVER = "ax.wheel.hand-over";

  /** {@link TaskBatch} (local): tasks the wheel found due, to be claimed and executed. */
  public static final String DISPATCH_DUE = "ax.dispatch.due";

  /**
   * Request, {@link TaskBatch} with header {@value #LEAD_MS_HEADER} (local): claim these tasks, due within
   * that lead, for a hand-over; answered when the claim answered (see {@link #WHEEL_HAND_OVER}).
   */
  public static final String DISPATCH_HAND_OVER = "ax.dispatch.hand-over";
  public static final String LEAD_MS_HEADER = "lead_ms";

  /** {@link ReadyBatch} (local): processor tasks just made READY, for the executor dispatch. */
  public static final String EXEC_READY = "ax.exec.ready";

  /** Request, no body (cluster, answered by the leader): the executor registry as JSON, for /health. */
  public static final String EXEC_STATS = "ax.exec.stats";

  /**
   * Request (cluster, JSON {@code [[task_id, trigger_ms, priority], …]}): new tasks accepted by a node
   * that is not the leader, for the leader's wheel. Only the leader consumes it.
   */
  public static final String WHEEL_SUBMIT = "ax.wheel.submit";

  /**
   * Request (cluster, JSON): the sync endpoint waits here for the outcome of one task; the leader
   * answers when the task's result is applied.
   */
  public static final String SYNC_AWAIT = "ax.sync.await";

  /**
   * Publish, no body (cluster): a schedule was created or resumed, so its first due time may already be
   * inside the load window; the leader's materialiser runs a pass now instead of at its next interval.
   */
  public static final String SCHEDULES_CHANGED = "ax.schedules.changed";

  /**
   * Request (cluster, JSON {@link FiguresMessage}): every node's meter changes since its last report, sent
   * every {@code AX_ALERT_EVAL_MS} for the alert rules the leader evaluates. Only the leader consumes it;
   * a node keeps adding up its changes until one is answered.
   */
  public static final String ALERT_FIGURES = "ax.alert.figures";

  /** {@link ax.leader.LeaderTerm} (local, publish): this node gained or lost the leader lease. */
  public static final String LEADER_CHANGED = "ax.leader.changed";

  /** Request, no body (local): the current {@link ax.leader.LeaderTerm}. */
  public static final String LEADER_STATUS = "ax.leader.status";

  // The executor protocol's addresses (register, heartbeat, result, drain, inboxes) are
  // ax.protocol.ExecutorAddresses, shared with the SDK.

  /**
   * Publish (cluster, String access key): a key was created, rotated, disabled, enabled or deleted
   * through the admin API; every node forgets its cached copy. PostgreSQL announces the same change
   * (KeyChangeListener), which also covers the CLI; either is enough.
   */
  public static final String KEY_CHANGED = "ax.admin.key-changed";

  /**
   * Publish (cluster, String holder): a leader resigned its lease in a graceful stop; standbys try for
   * it at once instead of at their next poll.
   */
  public static final String LEASE_RESIGNED = "ax.leader.resigned";

  /**
   * Request (local, no body): a graceful stop asks the executor dispatch to hand nothing more to
   * executors and answers once every hand-over in flight was acked or refused (at most the ack timeout).
   */
  public static final String EXEC_CLOSE_HAND_OVERS = "ax.exec.close-hand-overs";
}
