package ax.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RateLimitSpecTest {

  @Test
  void singleNumberIsTheRateAndTheBurst() {
    assertEquals(new RateLimitSpec(20, 20), RateLimitSpec.parse("20"));
  }

  @Test
  void rateSlashBurstSetsBothSeparately() {
    assertEquals(new RateLimitSpec(20, 40), RateLimitSpec.parse("20/40"));
    assertEquals(new RateLimitSpec(2.5, 10), RateLimitSpec.parse(" 2.5/10 "));
  }

  @Test
  void fractionalRateAloneGetsABurstOfOne() {
    assertEquals(new RateLimitSpec(0.5, 1), RateLimitSpec.parse("0.5"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "  ", "abc", "20/", "/40", "20/40/60", "-5", "+5", "0", "0/10", "20/0", "20/0.5",
      "NaN", "Infinity", "1e3", "0x10", "20d", "20 / 40"})
  void nonPositiveOrGarbageSpecIsRejectedNamingIt(String spec) {
    IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, () -> RateLimitSpec.parse(spec));
    assertTrue(thrown.getMessage().contains("\"" + spec + "\""), thrown.getMessage());
  }

  @Test
  void nullSpecIsRejected() {
    assertThrows(IllegalArgumentException.class, () -> RateLimitSpec.parse(null));
  }

  @Test
  void constructorRejectsWhatNoBucketCouldEnforce() {
    assertThrows(IllegalArgumentException.class, () -> new RateLimitSpec(0, 10));
    assertThrows(IllegalArgumentException.class, () -> new RateLimitSpec(10, 0));
    assertThrows(IllegalArgumentException.class, () -> new RateLimitSpec(Double.NaN, 10));
  }
}
