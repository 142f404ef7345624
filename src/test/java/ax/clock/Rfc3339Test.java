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

  /**
   * The hand-read common form must agree with OffsetDateTime.parse on everything: the same millisecond
   * where both read it, a refusal where the general parser refuses. Texts are made from valid ones with
   * one character replaced, inserted or removed, and fields pushed past their range.
   */
  @Test
  void theCommonFormReadsExactlyWhatTheGeneralParserReads() {
    SplittableRandom r = new SplittableRandom(7);
    String alphabet = "0123456789-+:.TtZz x";
    int read = 0;
    for (int i = 0; i < 300_000; i++) {
      String text = candidate(r);
      int edits = r.nextInt(3);
      for (int e = 0; e < edits && !text.isEmpty(); e++) {
        int at = r.nextInt(text.length());
        char c = alphabet.charAt(r.nextInt(alphabet.length()));
        text = switch (r.nextInt(3)) {
          case 0 -> text.substring(0, at) + c + text.substring(at + 1);
          case 1 -> text.substring(0, at) + c + text.substring(at);
          default -> text.substring(0, at) + text.substring(at + 1);
        };
      }
      Long general;
      try {
        general = Rfc3339.parseAny(text);
      } catch (java.time.DateTimeException | ArithmeticException e) {
        general = null;
      }
      long common = Rfc3339.parseCommon(text);
      if (common != Rfc3339.NOT_COMMON) {
        read++;
        assertEquals(general, common, "hand-read \"" + text + "\"");
      }
      Long either;
      try {
        either = Rfc3339.parseMillis(text);
      } catch (java.time.DateTimeException e) {
        either = null;
      }
      assertEquals(general, either, "parseMillis(\"" + text + "\")");
    }
    org.junit.jupiter.api.Assertions.assertTrue(read > 30_000, "the common form was read only " + read + " times");
  }

  @Test
  void theCommonFormTakesLowerCaseSeparatorsAndOffsets() {
    assertEquals(Rfc3339.parseAny("2024-02-29T23:59:59.999Z"), Rfc3339.parseCommon("2024-02-29t23:59:59.999z"));
    assertEquals(Rfc3339.NOT_COMMON, Rfc3339.parseCommon("2023-02-29T23:59:59.999Z"));
    assertEquals(-1L, Rfc3339.parseCommon("1969-12-31T23:59:59.999Z"));
    assertEquals(Rfc3339.parseAny("0000-01-01T00:00:00-18:00"), Rfc3339.parseCommon("0000-01-01T00:00:00-18:00"));
    assertEquals(Rfc3339.NOT_COMMON, Rfc3339.parseCommon("2025-01-01T00:00:00+18:01"));
  }

  /** A valid-looking text: fields sometimes out of range, fraction of 0–10 digits, Z or an offset. */
  private static String candidate(SplittableRandom r) {
    StringBuilder b = new StringBuilder();
    b.append(String.format("%04d-%02d-%02dT%02d:%02d:%02d", r.nextInt(10_000), r.nextInt(14), r.nextInt(33),
        r.nextInt(26), r.nextInt(62), r.nextInt(62)));
    int digits = r.nextInt(11);
    if (digits > 0 || r.nextInt(4) == 0) {
      b.append('.');
      for (int d = 0; d < digits; d++) {
        b.append((char) ('0' + r.nextInt(10)));
      }
    }
    switch (r.nextInt(4)) {
      case 0 -> b.append(r.nextBoolean() ? 'Z' : 'z');
      case 1 -> b.append(String.format("%s%02d:%02d", r.nextBoolean() ? "+" : "-", r.nextInt(20), r.nextInt(61)));
      case 2 -> b.append(String.format("+%02d:%02d", r.nextInt(19), r.nextInt(60)));
      default -> { }
    }
    return b.toString();
  }
}
