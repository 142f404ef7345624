package ax.logging;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LogThrottleTest {
  @Test
  void oneLinePerIntervalCountingTheOnesHeldBack() {
    LogThrottle t = new LogThrottle(10_000);

    assertEquals(0, t.admit(0));
    assertEquals(-1, t.admit(1));
    assertEquals(-1, t.admit(9_999));
    assertEquals(2, t.admit(10_000));
    assertEquals(0, t.admit(30_000));
  }

  @Test
  void eventLoopsSharingOneThrottleGetOneLineAndEveryOtherEventIsCounted() throws Exception {
    LogThrottle t = new LogThrottle(60_000);
    java.util.concurrent.atomic.AtomicInteger admitted = new java.util.concurrent.atomic.AtomicInteger();
    Thread[] loops = new Thread[4];
    for (int i = 0; i < loops.length; i++) {
      loops[i] = new Thread(() -> {
        for (int n = 0; n < 25_000; n++) {
          admitted.addAndGet(t.admit(1_000) >= 0 ? 1 : 0);
        }
      });
      loops[i].start();
    }
    for (Thread loop : loops) {
      loop.join();
    }
    assertEquals(1, admitted.get());
    assertEquals(99_999, t.admit(61_000), "every event held back is counted into the next line");
  }
}
