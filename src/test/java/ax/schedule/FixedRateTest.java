package ax.schedule;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class FixedRateTest {
  private static final Instant ANCHOR = Instant.parse("2026-12-01T00:00:00Z");
  private final FixedRate every30s = new FixedRate(ANCHOR, 30_000);

  @Test
  void theAnchorIsTheFirstOccurrence() {
    assertEquals(ANCHOR, every30s.nextAfter(ANCHOR.minusMillis(1)).orElseThrow());
    assertEquals(ANCHOR, every30s.nextAfter(ANCHOR.minusSeconds(86_400)).orElseThrow());
  }

  @Test
  void occurrencesStayOnTheAnchorsGridWhateverTheQuestion() {
    assertEquals(ANCHOR.plusSeconds(30), every30s.nextAfter(ANCHOR).orElseThrow());
    assertEquals(ANCHOR.plusSeconds(60), every30s.nextAfter(ANCHOR.plusMillis(30_001)).orElseThrow());
    assertEquals(ANCHOR.plusSeconds(60), every30s.nextAfter(ANCHOR.plusMillis(59_999)).orElseThrow());
  }

  @Test
  void countsDueTimesInAHalfOpenIntervalWithoutVisitingThem() {
    assertEquals(2L, every30s.countBetween(ANCHOR, ANCHOR.plusSeconds(60)).orElseThrow(), "(0, 60]: 30 and 60");
    assertEquals(3L, every30s.countBetween(ANCHOR.minusMillis(1), ANCHOR.plusSeconds(60)).orElseThrow());
    assertEquals(0L, every30s.countBetween(ANCHOR.plusSeconds(1), ANCHOR.plusSeconds(29)).orElseThrow());
    assertEquals(2_880L, every30s.countBetween(ANCHOR, ANCHOR.plusSeconds(86_400)).orElseThrow(), "a day");
  }

  @Test
  void aRateBelowOneMillisecondIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new FixedRate(ANCHOR, 0));
  }
}
