package ax.task;

import ax.wheel.ScheduledTask;

import java.util.ArrayList;
import java.util.List;

/**
 * An outcome the database accepted: the task's new status and, for a retry, when it is due again.
 *
 * @param resultJson the stored result (SUCCESS), else null
 * @param parentId   the sharded parent when the task is a shard, else null
 */
public record Settled(long taskId, TaskStatus status, long dueMs, int priority, String resultJson, String error,
                      Long parentId) {

  /** A retry (or re-fire) was scheduled: the task must go back to the wheel. */
  public boolean retries() {
    return status == TaskStatus.DELAYED;
  }

  /** The retries among {@code settled}, as wheel entries due at their next trigger time. */
  public static List<ScheduledTask> retriesOf(List<Settled> settled) {
    List<ScheduledTask> out = new ArrayList<>();
    for (Settled s : settled) {
      if (s.retries()) {
        out.add(new ScheduledTask(s.taskId(), s.dueMs(), s.priority()));
      }
    }
    return out;
  }
}
