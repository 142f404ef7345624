package ax.task;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class DependencyGateTest {

  @Test
  void parentsThatHaveNotEndedAreWaitedFor() {
    DependencyGate.Verdict v = DependencyGate.decide(TaskStatus.READY,
        Map.of(1L, TaskStatus.RUNNING, 2L, TaskStatus.SUCCESS, 3L, TaskStatus.CREATED));
    assertEquals(TaskStatus.CREATED, v.status());
    assertEquals(2, v.waitingOn());
    assertNull(v.error());
  }

  @Test
  void parentsThatAllSucceededAdmitTheTaskAsWithoutDependencies() {
    assertEquals(new DependencyGate.Verdict(TaskStatus.DELAYED, 0, null),
        DependencyGate.decide(TaskStatus.DELAYED, Map.of(1L, TaskStatus.SUCCESS, 2L, TaskStatus.SUCCESS)));
  }

  @Test
  void anyParentThatEndedOtherwiseSkipsItNamingTheLowestSuchId() {
    for (TaskStatus end : new TaskStatus[] {TaskStatus.FAILED, TaskStatus.CANCELLED, TaskStatus.SKIPPED}) {
      DependencyGate.Verdict v = DependencyGate.decide(TaskStatus.READY,
          Map.of(9L, end, 4L, end, 1L, TaskStatus.RUNNING));
      assertEquals(TaskStatus.SKIPPED, v.status());
      assertEquals("dependency 4 ended " + end, v.error());
      assertEquals(0, v.waitingOn());
    }
  }
}
