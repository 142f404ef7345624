package ax.task;

import static ax.task.TaskStatus.CANCELLED;
import static ax.task.TaskStatus.CREATED;
import static ax.task.TaskStatus.DELAYED;
import static ax.task.TaskStatus.DISPATCHING;
import static ax.task.TaskStatus.FAILED;
import static ax.task.TaskStatus.READY;
import static ax.task.TaskStatus.RUNNING;
import static ax.task.TaskStatus.SKIPPED;
import static ax.task.TaskStatus.SUCCESS;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ax.task.TaskStateMachine.FailureOutcome;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class TaskStateMachineTest {

  /** The specification, written out independently of the class under test. */
  private static final Set<String> LEGAL = Set.of(
      "CREATED->DELAYED", "CREATED->READY", "CREATED->CANCELLED", "CREATED->SKIPPED",
      "DELAYED->READY", "DELAYED->DISPATCHING", "DELAYED->CANCELLED", "DELAYED->SKIPPED",
      "DELAYED->RUNNING", "DELAYED->SUCCESS", "DELAYED->FAILED",
      "READY->DISPATCHING", "READY->CANCELLED", "READY->SKIPPED", "READY->FAILED",
      "DISPATCHING->RUNNING", "DISPATCHING->READY", "DISPATCHING->DELAYED", "DISPATCHING->FAILED",
      "DISPATCHING->SUCCESS",
      "RUNNING->SUCCESS", "RUNNING->FAILED", "RUNNING->DELAYED");

  static Stream<Arguments> everyPairOfStatuses() {
    List<Arguments> pairs = new ArrayList<>();
    for (TaskStatus from : TaskStatus.values()) {
      for (TaskStatus to : TaskStatus.values()) {
        pairs.add(Arguments.of(from, to, LEGAL.contains(from + "->" + to)));
      }
    }
    return pairs.stream();
  }

  @ParameterizedTest(name = "{0} -> {1} legal: {2}")
  @MethodSource("everyPairOfStatuses")
  void transitionIsAllowedExactlyWhenTheSpecificationListsIt(TaskStatus from, TaskStatus to, boolean legal) {
    assertEquals(legal, TaskStateMachine.canTransition(from, to));
    if (legal) {
      assertDoesNotThrow(() -> TaskStateMachine.requireTransition(from, to));
    } else {
      IllegalTransitionException thrown = assertThrows(IllegalTransitionException.class,
          () -> TaskStateMachine.requireTransition(from, to));
      assertTrue(thrown.getMessage().contains(from.name()) && thrown.getMessage().contains(to.name()),
          thrown.getMessage());
      assertEquals(from, thrown.from());
      assertEquals(to, thrown.to());
    }
  }

  @ParameterizedTest
  @EnumSource(value = TaskStatus.class, names = {"SUCCESS", "FAILED", "CANCELLED", "SKIPPED"})
  void terminalStatusHasNoWayOut(TaskStatus terminal) {
    for (TaskStatus to : TaskStatus.values()) {
      assertEquals(false, TaskStateMachine.canTransition(terminal, to), terminal + " -> " + to);
    }
  }

  @ParameterizedTest
  @EnumSource(TaskStatus.class)
  void sourcesAreExactlyTheStatusesThatMayMoveToTheTarget(TaskStatus to) {
    Set<TaskStatus> expected = EnumSet.noneOf(TaskStatus.class);
    for (TaskStatus from : TaskStatus.values()) {
      if (LEGAL.contains(from + "->" + to)) {
        expected.add(from);
      }
    }
    assertEquals(expected, TaskStateMachine.sources(to));
  }

  @Test
  void onlyTasksNotYetDispatchedCanBeCancelled() {
    assertEquals(EnumSet.of(CREATED, DELAYED, READY), TaskStateMachine.sources(CANCELLED));
  }

  @Test
  void claimAcceptsReadyAndDelayedTasks() {
    assertEquals(EnumSet.of(READY, DELAYED), TaskStateMachine.sources(DISPATCHING));
  }

  @Test
  void nothingTransitionsIntoCreated() {
    assertEquals(Set.of(), TaskStateMachine.sources(CREATED));
  }

  @Test
  void sourcesCannotBeModifiedByCallers() {
    assertThrows(UnsupportedOperationException.class, () -> TaskStateMachine.sources(SKIPPED).add(RUNNING));
  }

  @Test
  void taskDueLaterIsAdmittedAsDelayedAndTaskDueNowOrEarlierAsReady() {
    assertEquals(DELAYED, TaskStateMachine.admitted(1_001, 1_000));
    assertEquals(READY, TaskStateMachine.admitted(1_000, 1_000));
    assertEquals(READY, TaskStateMachine.admitted(999, 1_000));
  }

  @Test
  void failureWithRetriesLeftIsDelayedByTheBackoffForTheNextRetry() {
    RetryBackoff backoff = RetryBackoff.of(10_000, 30_000, 60_000);

    assertEquals(new FailureOutcome(DELAYED, 1, 1_010_000), TaskStateMachine.afterFailure(0, 2, backoff, 1_000_000));
    assertEquals(new FailureOutcome(DELAYED, 2, 1_030_000), TaskStateMachine.afterFailure(1, 2, backoff, 1_000_000));
  }

  @Test
  void failureWithRetriesExhaustedIsFinalAndKeepsTheRetryCount() {
    assertEquals(new FailureOutcome(FAILED, 2, -1),
        TaskStateMachine.afterFailure(2, 2, RetryBackoff.defaults(), 1_000_000));
  }

  @Test
  void failureWithMaxRetryZeroFailsAtOnce() {
    assertEquals(new FailureOutcome(FAILED, 0, -1),
        TaskStateMachine.afterFailure(0, 0, RetryBackoff.defaults(), 1_000_000));
  }

  @Test
  void everyFailureOutcomeIsALegalMoveFromRunning() {
    for (int retry = 0; retry <= 3; retry++) {
      FailureOutcome outcome = TaskStateMachine.afterFailure(retry, 2, RetryBackoff.defaults(), 0);
      assertTrue(TaskStateMachine.canTransition(RUNNING, outcome.status()), outcome.toString());
    }
    assertTrue(TaskStateMachine.canTransition(RUNNING, SUCCESS));
  }

  @Test
  void negativeRetryCountsAreRejected() {
    assertThrows(IllegalArgumentException.class,
        () -> TaskStateMachine.afterFailure(-1, 2, RetryBackoff.defaults(), 0));
    assertThrows(IllegalArgumentException.class,
        () -> TaskStateMachine.afterFailure(0, -1, RetryBackoff.defaults(), 0));
  }
}
