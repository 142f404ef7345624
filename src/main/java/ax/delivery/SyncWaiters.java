package ax.delivery;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Who waits for which task's outcome on the sync endpoint (waiter ids are the runner's). */
final class SyncWaiters {
  private final Map<Long, List<Long>> byTask = new HashMap<>();
  private final Map<Long, Long> taskOf = new HashMap<>();

  void await(long waiterId, long taskId) {
    byTask.computeIfAbsent(taskId, id -> new ArrayList<>()).add(waiterId);
    taskOf.put(waiterId, taskId);
  }

  /** The waiter gave up; false when it was answered already. */
  boolean expire(long waiterId) {
    Long taskId = taskOf.remove(waiterId);
    if (taskId == null) {
      return false;
    }
    List<Long> waiters = byTask.get(taskId);
    waiters.remove(waiterId);
    if (waiters.isEmpty()) {
      byTask.remove(taskId);
    }
    return true;
  }

  /** The waiters of {@code taskId}, now answered (empty when nobody waits). */
  List<Long> answer(long taskId) {
    List<Long> waiters = byTask.remove(taskId);
    if (waiters == null) {
      return List.of();
    }
    waiters.forEach(taskOf::remove);
    return waiters;
  }

  List<Long> all() {
    return new ArrayList<>(taskOf.keySet());
  }

  void clear() {
    byTask.clear();
    taskOf.clear();
  }
}
