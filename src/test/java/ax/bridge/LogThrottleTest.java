package ax.bridge;

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
}
