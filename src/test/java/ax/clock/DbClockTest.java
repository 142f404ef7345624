package ax.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DbClockTest {
  private final AtomicLong mono = new AtomicLong(5_000_000_000L);
  private final DbClock clock = new DbClock(mono::get);

  @Test
  void aReadingLateInItsMillisecondReachesTheNextOneAfterTheRestOfItNotAWholeMillisecondLater() {
    clock.anchorMicros(1_700_000_000_999_800L, mono.get()); // 0.2 ms before …001 000 ms
    assertEquals(1_700_000_000_999L, clock.nowMillis());
    assertEquals(200_000, clock.nanosUntil(1_700_000_001_000L));
    mono.addAndGet(199_999);
    assertEquals(1_700_000_000_999L, clock.nowMillis(), "never ahead of the reading plus the time since");
    assertEquals(1, clock.nanosUntil(1_700_000_001_000L));
    mono.addAndGet(1);
    assertEquals(1_700_000_001_000L, clock.nowMillis());
    assertEquals(0, clock.nanosUntil(1_700_000_001_000L));
  }

  @Test
  void theWaitCountsFromTheReadingToTheInstant() {
    clock.anchorMicros(1_700_000_000_000_250L, mono.get());
    assertEquals(49_750_000, clock.nanosUntil(1_700_000_000_050L));
    assertEquals(0, clock.nanosUntil(1_700_000_000_000L), "an instant reached waits for nothing");
    assertEquals(0, clock.nanosUntil(1_699_999_999_000L));
  }

  @Test
  void aResyncThatLandsBehindHoldsTheClockStillAndAPassedInstantStaysPassed() {
    clock.anchorMillis(1_700_000_000_010L, mono.get());
    assertEquals(1_700_000_000_010L, clock.nowMillis());
    clock.anchorMicros(1_700_000_000_007_500L, mono.get()); // 2.5 ms behind the last estimate
    assertEquals(1_700_000_000_010L, clock.nowMillis(), "never moves backwards");
    assertEquals(0, clock.nanosUntil(1_700_000_000_010L));
    assertEquals(3_500_000, clock.nanosUntil(1_700_000_000_011L), "the wait follows the new reading");
  }

  @Test
  void usedBeforeItsFirstSyncItSaysSo() {
    assertThrows(IllegalStateException.class, clock::nowMillis);
    assertThrows(IllegalStateException.class, () -> clock.nanosUntil(1));
  }
}
