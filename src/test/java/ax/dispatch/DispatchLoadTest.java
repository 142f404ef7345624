package ax.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ax.wheel.ScheduledTask;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class DispatchLoadTest {

  @Test
  void countsTasksAwaitingAClaimAndCallsNotSettled() {
    OutcomeBacklog calls = new OutcomeBacklog(100);
    DispatchLoad load = new DispatchLoad(calls);
    load.awaitingClaim(500);
    calls.callStarted(1);
    calls.callStarted(2);
    assertEquals(502, load.dueTasksInHand());
    load.awaitingClaim(-500);
    calls.settled(List.of(1L), 1);
    assertEquals(1, load.dueTasksInHand());
  }

  @Test
  void followsTheClaimQueuesOfSeveralDispatchers() {
    DispatchLoad load = new DispatchLoad(new OutcomeBacklog(100));
    ClaimQueue first = new ClaimQueue(3, load::awaitingClaim);
    ClaimQueue second = new ClaimQueue(3, load::awaitingClaim);
    first.add(batch(1, 2));
    first.add(batch(3, 4));
    second.add(batch(5));
    assertEquals(5, load.dueTasksInHand());
    assertEquals(2, first.next().size(), "2 + 2 do not fit in 3: the first batch alone");
    assertEquals(3, load.dueTasksInHand());
    second.clear();
    assertEquals(2, load.dueTasksInHand());
    first.next();
    first.next(); // nothing left: no change
    first.clear();
    assertEquals(0, load.dueTasksInHand());
  }

  private static List<ScheduledTask> batch(long... ids) {
    return Arrays.stream(ids).mapToObj(id -> new ScheduledTask(id, 0, 1)).toList();
  }
}
