package ax.task;

/**
 * The lifecycle states of a task (R1). The legal moves between them live in one place,
 * {@link TaskStateMachine}; see {@code docs/state-machine.md} for the diagram.
 */
public enum TaskStatus {
  /** Accepted by the API, not yet placed in the schedule. */
  CREATED,
  /** In the scheduler but not yet due. */
  DELAYED,
  /** Due, waiting to be claimed for dispatch. */
  READY,
  /** Claimed by a scheduler and pushed to an executor; waiting for its ack. */
  DISPATCHING,
  /** Acknowledged by an executor, which is running it. */
  RUNNING,
  /** Finished successfully. */
  SUCCESS,
  /** Failed for good: retries exhausted, or none allowed. */
  FAILED,
  /** Cancelled by a caller before it started. */
  CANCELLED,
  /** Never run because a task it depends on did not succeed. */
  SKIPPED;

  /** Whether this is an end state: no transition leaves it, and its row will not change again. */
  public boolean isTerminal() {
    return this == SUCCESS || this == FAILED || this == CANCELLED || this == SKIPPED;
  }
}
