package ax.task;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TaskStatusTest {

  @Test
  void exactlySuccessFailedCancelledAndSkippedAreTerminal() {
    Set<TaskStatus> terminal = EnumSet.noneOf(TaskStatus.class);
    for (TaskStatus status : TaskStatus.values()) {
      if (status.isTerminal()) {
        terminal.add(status);
      }
    }
    assertEquals(EnumSet.of(TaskStatus.SUCCESS, TaskStatus.FAILED, TaskStatus.CANCELLED, TaskStatus.SKIPPED),
        terminal);
  }
}
