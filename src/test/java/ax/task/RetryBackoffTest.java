package ax.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RetryBackoffTest {

  @Test
  void defaultsAreTenThirtyAndSixtySeconds() {
    RetryBackoff backoff = RetryBackoff.defaults();

    assertEquals(10_000, backoff.delayMs(1));
    assertEquals(30_000, backoff.delayMs(2));
    assertEquals(60_000, backoff.delayMs(3));
  }

  @Test
  void retriesBeyondTheListReuseTheLastDelay() {
    RetryBackoff backoff = RetryBackoff.of(100, 200);

    assertEquals(200, backoff.delayMs(3));
    assertEquals(200, backoff.delayMs(Integer.MAX_VALUE));
  }

  @Test
  void retryNumberBelowOneIsRejected() {
    assertThrows(IllegalArgumentException.class, () -> RetryBackoff.defaults().delayMs(0));
    assertThrows(IllegalArgumentException.class, () -> RetryBackoff.defaults().delayMs(-1));
  }

  @Test
  void parseUnderstandsSecondsMinutesMillisecondsAndBareNumbers() {
    assertEquals(RetryBackoff.of(10_000, 30_000, 60_000), RetryBackoff.parse("10s,30s,60s"));
    assertEquals(RetryBackoff.of(10_000, 30_000), RetryBackoff.parse("10000,30000"));
    assertEquals(RetryBackoff.of(500, 120_000, 7), RetryBackoff.parse(" 500ms , 2m,7 "));
  }

  @Test
  void toStringIsReadBackByParse() {
    RetryBackoff backoff = RetryBackoff.of(10_000, 0, 60_000);

    assertEquals("10000ms,0ms,60000ms", backoff.toString());
    assertEquals(backoff, RetryBackoff.parse(backoff.toString()));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   "})
  void blankSpecIsRejected(String spec) {
    IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, () -> RetryBackoff.parse(spec));
    assertTrue(thrown.getMessage().contains("blank"), thrown.getMessage());
  }

  @Test
  void nullSpecIsRejected() {
    assertThrows(IllegalArgumentException.class, () -> RetryBackoff.parse(null));
  }

  @ParameterizedTest
  @ValueSource(strings = {"10s,abc,60s", "10s,,60s", "10s,-5s", "10h", "1.5s", "10 s", "99999999999999999m"})
  void garbagePartIsRejectedByName(String spec) {
    IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, () -> RetryBackoff.parse(spec));
    String badPart = switch (spec) {
      case "10s,abc,60s" -> "\"abc\"";
      case "10s,,60s" -> "\"\"";
      case "10s,-5s" -> "\"-5s\"";
      default -> "\"" + spec + "\"";
    };
    assertTrue(thrown.getMessage().contains(badPart), thrown.getMessage());
  }

  @Test
  void ofRejectsAnEmptyListAndNegativeDelays() {
    assertThrows(IllegalArgumentException.class, RetryBackoff::of);
    assertThrows(IllegalArgumentException.class, () -> RetryBackoff.of(10, -1));
  }

  @Test
  void ofCopiesItsArgumentSoLaterChangesDoNotLeakIn() {
    long[] delays = {100, 200};
    RetryBackoff backoff = RetryBackoff.of(delays);
    delays[0] = 999;

    assertEquals(100, backoff.delayMs(1));
  }

  @Test
  void backoffsWithTheSameDelaysAreEqual() {
    assertEquals(RetryBackoff.of(1, 2).hashCode(), RetryBackoff.of(1, 2).hashCode());
    assertNotEquals(RetryBackoff.of(1, 2), RetryBackoff.of(2, 1));
  }
}
