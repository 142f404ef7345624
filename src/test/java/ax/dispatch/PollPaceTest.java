package ax.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class PollPaceTest {

  @Test
  void emptyLooksDoubleTheWaitUpToTheCap() {
    PollPace pace = new PollPace(50, 200);
    assertEquals(100, pace.afterLook(0));
    assertEquals(200, pace.afterLook(0));
    assertEquals(200, pace.afterLook(0), "capped");
    assertEquals(200, pace.afterLook(0));
  }

  @Test
  void aLookThatFindsWorkReturnsToTheBusyPaceAtOnce() {
    PollPace pace = new PollPace(50, 200);
    pace.afterLook(0);
    pace.afterLook(0);
    assertEquals(50, pace.afterLook(3));
    assertEquals(50, pace.afterLook(1), "work keeps coming: every busyMs");
    assertEquals(100, pace.afterLook(0), "the idle wait starts over from busyMs");
  }

  @Test
  void aSkippedOrFailedLookComesBackAtTheBusyPaceWithoutResettingTheIdleWait() {
    PollPace pace = new PollPace(50, 400);
    pace.afterLook(0);
    pace.afterLook(0); // 200
    assertEquals(50, pace.afterSkip());
    assertEquals(400, pace.afterLook(0), "the doubling goes on from where it was");
  }

  @Test
  void aCapEqualToTheBusyPaceNeverBacksOff() {
    PollPace pace = new PollPace(50, 50);
    assertEquals(50, pace.afterLook(0));
    assertEquals(50, pace.afterLook(0));
  }

  @Test
  void rejectsNonsense() {
    assertThrows(IllegalArgumentException.class, () -> new PollPace(0, 10));
    assertThrows(IllegalArgumentException.class, () -> new PollPace(100, 50));
  }
}
