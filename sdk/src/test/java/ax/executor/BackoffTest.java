package ax.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class BackoffTest {

  @Test
  void withoutJitterTheDelayDoublesUpToTheCap() {
    Backoff backoff = new Backoff(100, 5_000, 0.2, () -> 0.0);

    List<Long> delays = IntStream.range(0, 9).mapToObj(backoff::delayMs).toList();

    assertEquals(List.of(100L, 200L, 400L, 800L, 1_600L, 3_200L, 5_000L, 5_000L, 5_000L), delays);
    assertEquals(5_000, backoff.delayMs(Integer.MAX_VALUE));
  }

  @Test
  void jitterOnlyShortensTheDelayByAtMostItsShare() {
    Backoff backoff = new Backoff(100, 5_000, 0.2, () -> 0.999_999);

    assertEquals(80, backoff.delayMs(0));
    assertEquals(4_000, backoff.delayMs(10));
  }

  @Test
  void defaultDelaysStayWithinTheirBand() {
    Backoff backoff = Backoff.defaults();
    for (int attempt = 0; attempt < 20; attempt++) {
      long base = Math.min(5_000, 100L << Math.min(attempt, 10));
      long d = backoff.delayMs(attempt);
      assertTrue(d <= base && d >= base * 0.8 - 1, "attempt " + attempt + " gave " + d);
    }
  }

  @Test
  void nonsenseSettingsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new Backoff(0, 100, 0, () -> 0));
    assertThrows(IllegalArgumentException.class, () -> new Backoff(100, 50, 0, () -> 0));
    assertThrows(IllegalArgumentException.class, () -> new Backoff(100, 500, 1, () -> 0));
  }
}
