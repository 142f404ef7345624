package ax.clock;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

class Rfc3339Test {
  private static final DateTimeFormatter REFERENCE =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  @Test
  void formatsLikeTheJavaTimeFormatterForAnyMillisecondInFourDigitYears() {
    SplittableRandom r = new SplittableRandom(42);
    long min = Instant.parse("0000-01-01T00:00:00Z").toEpochMilli();
    long max = Instant.parse("9999-12-31T23:59:59.999Z").toEpochMilli();
    for (int i = 0; i < 200_000; i++) {
      long ms = r.nextLong(min, max + 1);
      assertEquals(REFERENCE.format(Instant.ofEpochMilli(ms)), Rfc3339.format(ms), "at " + ms);
    }
    assertEquals("1970-01-01T00:00:00.000Z", Rfc3339.format(0));
    assertEquals("1969-12-31T23:59:59.999Z", Rfc3339.format(-1));
  }

  @Test
  void parsingTruncatesToMillisecondsAndRoundTrips() {
    assertEquals(1_764_460_800_123L, Rfc3339.parseMillis("2025-11-30T00:00:00.123987+00:00"));
    assertEquals("2025-11-30T00:00:00.123Z", Rfc3339.format(Rfc3339.parseMillis("2025-11-30T01:00:00.123+01:00")));
  }
}
