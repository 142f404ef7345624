package ax.wheel;

/**
 * What the in-memory tiers need to know about a task to decide when to hand it out: its id, its due
 * time and its priority. Everything else about the task stays in PostgreSQL, so the tiers stay small
 * and can always be rebuilt from the database after a restart (R2).
 *
 * @param taskId        the task's snowflake id
 * @param triggerTimeMs when the task is due, epoch milliseconds (database time)
 * @param priority      0–9; among tasks due at the same millisecond the higher one goes first
 */
public record ScheduledTask(long taskId, long triggerTimeMs, int priority) {

  /** Lowest priority a task may have. */
  public static final int MIN_PRIORITY = 0;
  /** Highest priority a task may have. */
  public static final int MAX_PRIORITY = 9;

  /** Rejects a priority outside 0–9, because ordering code relies on that range. */
  public ScheduledTask {
    if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
      throw new IllegalArgumentException(
          "priority must be " + MIN_PRIORITY + "–" + MAX_PRIORITY + ", was " + priority + " (task " + taskId + ")");
    }
  }
}
