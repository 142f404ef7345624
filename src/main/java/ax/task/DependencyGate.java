package ax.task;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a new task with dependencies becomes, given its parents' statuses at the moment they are locked
 * (API.md "Dependencies and duplicates"). After that moment the parents' own terminal transitions decide
 * (V10's trigger): SUCCESS counts the child down, any other end SKIPS it.
 */
public final class DependencyGate {
  private DependencyGate() {
  }

  /**
   * @param status    CREATED (waiting), SKIPPED, or the status the task would have had without dependencies
   * @param waitingOn parents not ended yet (0 unless CREATED)
   * @param error     for SKIPPED: which parent ended how; null otherwise
   */
  public record Verdict(TaskStatus status, int waitingOn, String error) {
  }

  /**
   * @param admitted what the task would be without dependencies (DELAYED or READY)
   * @param parents  every parent's current status
   */
  public static Verdict decide(TaskStatus admitted, Map<Long, TaskStatus> parents) {
    int waiting = 0;
    // In id order, so the parent an error names does not depend on a map's iteration order.
    for (Map.Entry<Long, TaskStatus> p : new TreeMap<>(parents).entrySet()) {
      TaskStatus s = p.getValue();
      if (s == TaskStatus.FAILED || s == TaskStatus.CANCELLED || s == TaskStatus.SKIPPED) {
        return new Verdict(TaskStatus.SKIPPED, 0, "dependency " + p.getKey() + " ended " + s);
      }
      if (s != TaskStatus.SUCCESS) {
        waiting++;
      }
    }
    return waiting > 0 ? new Verdict(TaskStatus.CREATED, waiting, null) : new Verdict(admitted, 0, null);
  }
}
