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

  /** {@link TaskBatch} (local): tasks the wheel found due, to be claimed and executed. */
  public static final String DISPATCH_DUE = "ax.dispatch.due";

  /** {@link LeaderTerm} (local, publish): this node gained or lost the leader lease. */
  public static final String LEADER_CHANGED = "ax.leader.changed";

  /** Request, no body (local): the current {@link LeaderTerm}. */
  public static final String LEADER_STATUS = "ax.leader.status";
}
