package ax.task;

/**
 * Thrown when code asks for a status change the state machine does not allow. It signals a bug in
 * the caller (a guarded database update would have matched no row), so it is unchecked.
 */
public class IllegalTransitionException extends RuntimeException {

  private final TaskStatus from;
  private final TaskStatus to;

  public IllegalTransitionException(TaskStatus from, TaskStatus to) {
    super("illegal task status transition " + from + " -> " + to);
    this.from = from;
    this.to = to;
  }

  public TaskStatus from() {
    return from;
  }

  public TaskStatus to() {
    return to;
  }
}
