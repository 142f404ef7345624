package ax.task;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class OutcomeTallyTest {
  private final OutcomePolicy policy = new OutcomePolicy(RetryBackoff.of(10_000));

  private static Settled applied(Completion c) {
    return new Settled(c.taskId(), c.status(), c.nextDueMs(), 5, c.resultJson(), c.error(), null);
  }

  private static AttemptBudget budget(long taskId, int attempt, int retryCount, int maxRetry, int refires) {
    return new AttemptBudget(taskId, attempt, retryCount, maxRetry, refires);
  }

  @Test
  void aFirstFailureIsNotAFailureInARowButItsRetryFailingIs() {
    Completion first = policy.failed(1, 1, 0, 2, "HTTP 500", false, 0);
    Completion second = policy.failed(1, 2, 1, 2, "HTTP 500", false, 0);
    Completion thirdAndLast = policy.failed(1, 3, 2, 2, "HTTP 500", true, 0);
    assertFalse(first.failedAgain());
    assertTrue(second.failedAgain());
    assertTrue(thirdAndLast.failedAgain(), "the last retry failing, with none left (FAILED), is one too");
  }

  @Test
  void aTaskWithoutRetriesThatFailsOnceHasNotFailedTwice() {
    Completion only = policy.failed(1, 1, 0, 0, "HTTP 500", false, 0);
    assertEquals(TaskStatus.FAILED, only.status());
    assertFalse(only.failedAgain());
  }

  @Test
  void aSuccessOnARetryOrALostAttemptIsNoFailureInARow() {
    assertFalse(policy.succeeded(1, 3, 2, null).failedAgain());
    assertFalse(policy.lost(budget(1, 2, 1, 3, 0), "gone", 0).failedAgain());
  }

  @Test
  void countsOnlyWhatTheDatabaseAcceptedByOutcome() {
    Completion ok = policy.succeeded(1, 1, 0, "{}");
    Completion okAfterRetries = policy.succeeded(2, 3, 2, "{}");
    Completion failed = policy.failed(3, 1, 0, 2, "HTTP 500", false, 0);
    Completion timedOutAgain = policy.failed(4, 2, 1, 2, "timeout", true, 0);
    Completion exhausted = policy.failed(5, 3, 2, 2, "HTTP 500", false, 0);
    Completion lost = policy.lost(budget(6, 1, 0, 2, 0), "gone", 0);
    Completion late = policy.failed(7, 2, 1, 2, "HTTP 500", false, 0);
    List<Completion> written = List.of(ok, okAfterRetries, failed, timedOutAgain, exhausted, lost, late);
    List<Settled> accepted = List.of(applied(ok), applied(okAfterRetries), applied(failed), applied(timedOutAgain),
        applied(exhausted), applied(lost));

    OutcomeTally t = OutcomeTally.of(written, accepted);

    assertEquals(2, t.successes());
    assertEquals(2, t.failures(), "the first failure and the exhausted one; task 7's was refused as late");
    assertEquals(1, t.timeouts());
    assertEquals(2, t.failedAgain(), "tasks 4 and 5 failed on a retry");
    assertArrayEquals(new int[] {0, 2, 2}, t.terminalRetries(), "SUCCESS and FAILED tasks, with the retries they used");
  }

  @Test
  void nothingAcceptedCountsNothing() {
    OutcomeTally t = OutcomeTally.of(List.of(policy.succeeded(1, 1, 0, null)), List.of());
    assertEquals(0, t.successes() + t.failures() + t.timeouts() + t.failedAgain());
    assertEquals(0, t.terminalRetries().length);
  }
}
