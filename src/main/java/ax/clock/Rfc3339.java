package ax.clock;

import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/** RFC 3339 timestamps with exactly millisecond precision, always in UTC, as the API shows them. */
public final class Rfc3339 {
  private static final DateTimeFormatter FORMAT =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private Rfc3339() {
  }

  /**
   * Hand-rolled for years 0000–9999: this runs twice per HTTP call, and DateTimeFormatter formats the
   * fraction through BigDecimal (a visible share of allocations in a 20 000-task burst).
   */
  public static String format(long epochMillis) {
    long secs = Math.floorDiv(epochMillis, 1000L);
    int millis = (int) Math.floorMod(epochMillis, 1000L);
    LocalDate date = LocalDate.ofEpochDay(Math.floorDiv(secs, 86_400L));
    int secOfDay = (int) Math.floorMod(secs, 86_400L);
    int year = date.getYear();
    if (year < 0 || year > 9999) {
      return FORMAT.format(Instant.ofEpochMilli(epochMillis));
    }
    char[] c = new char[24];
    digits(c, 0, year, 4);
    c[4] = '-';
    digits(c, 5, date.getMonthValue(), 2);
    c[7] = '-';
    digits(c, 8, date.getDayOfMonth(), 2);
    c[10] = 'T';
    digits(c, 11, secOfDay / 3600, 2);
    c[13] = ':';
    digits(c, 14, secOfDay / 60 % 60, 2);
    c[16] = ':';
    digits(c, 17, secOfDay % 60, 2);
    c[19] = '.';
    digits(c, 20, millis, 3);
    c[23] = 'Z';
    return new String(c);
  }

  private static void digits(char[] out, int at, int value, int width) {
    for (int i = at + width - 1; i >= at; i--) {
      out[i] = (char) ('0' + value % 10);
      value /= 10;
    }
  }

  public static String format(OffsetDateTime t) {
    return t == null ? null : format(t.toInstant().toEpochMilli());
  }

  /**
   * Parses an RFC 3339 date-time with offset; sub-millisecond digits are truncated. {@code t} and
   * {@code z} may be lower case, as RFC 3339 (5.6) allows. Accepts exactly what
   * {@code OffsetDateTime.parse} accepts (ISO_OFFSET_DATE_TIME, strict).
   */
  public static long parseMillis(String text) throws DateTimeParseException {
    long fast = parseCommon(text);
    return fast != NOT_COMMON ? fast : parseAny(text);
  }

  /** The general parser: every form ISO_OFFSET_DATE_TIME takes, and its errors. */
  static long parseAny(String text) throws DateTimeParseException {
    return OffsetDateTime.parse(text.toUpperCase(java.util.Locale.ROOT)).toInstant().truncatedTo(ChronoUnit.MILLIS)
        .toEpochMilli();
  }

  /** {@link #parseCommon}'s answer for a text it leaves to {@link #parseAny}. */
  static final long NOT_COMMON = Long.MIN_VALUE;

  /**
   * The form every client sends, read by hand: {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}](Z|±HH:MM)}, every
   * field in range. Anything else (another shape, an impossible date, a 24th hour) is left to
   * {@link #parseAny}, which accepts or refuses it with its own message. Why: a batch of 1000 tasks
   * parses 1000 trigger times, and OffsetDateTime.parse was ~10 % of the API's samples in a profile of
   * batch ingest.
   *
   * @return epoch milliseconds, or {@link #NOT_COMMON}
   */
  static long parseCommon(String s) {
    int n = s.length();
    if (n < 20 || n > 35 || s.charAt(4) != '-' || s.charAt(7) != '-' || (s.charAt(10) | 0x20) != 't'
        || s.charAt(13) != ':' || s.charAt(16) != ':') {
      return NOT_COMMON;
    }
    int year = number(s, 0, 4);
    int month = number(s, 5, 2);
    int day = number(s, 8, 2);
    int hour = number(s, 11, 2);
    int minute = number(s, 14, 2);
    int second = number(s, 17, 2);
    if (year < 0 || month < 1 || month > 12 || day < 1 || day > 28 && day > lengthOfMonth(year, month)
        || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
      return NOT_COMMON;
    }
    int at = 19;
    int millis = 0;
    if (s.charAt(at) == '.') {
      int digits = 0;
      at++;
      while (at < n && s.charAt(at) >= '0' && s.charAt(at) <= '9') {
        if (digits < 3) {
          millis = millis * 10 + (s.charAt(at) - '0');
        }
        digits++;
        at++;
      }
      if (digits == 0 || digits > 9) {
        return NOT_COMMON;
      }
      for (int d = digits; d < 3; d++) {
        millis *= 10;
      }
    }
    int offsetSeconds;
    if (at == n - 1 && (s.charAt(at) | 0x20) == 'z') {
      offsetSeconds = 0;
    } else if (at == n - 6 && (s.charAt(at) == '+' || s.charAt(at) == '-') && s.charAt(at + 3) == ':') {
      int oh = number(s, at + 1, 2);
      int om = number(s, at + 4, 2);
      if (oh < 0 || om < 0 || om > 59 || oh > 18 || oh == 18 && om > 0) {
        return NOT_COMMON;
      }
      offsetSeconds = (s.charAt(at) == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    } else {
      return NOT_COMMON;
    }
    long epochDay = LocalDate.of(year, month, day).toEpochDay();
    long epochSecond = epochDay * 86_400L + hour * 3600L + minute * 60L + second - offsetSeconds;
    return epochSecond * 1000L + millis;
  }

  /** The decimal number in {@code s[at, at + width)}, or -1 if a character there is not a digit. */
  private static int number(String s, int at, int width) {
    int v = 0;
    for (int i = at; i < at + width; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  private static int lengthOfMonth(int year, int month) {
    return java.time.YearMonth.of(year, month).lengthOfMonth();
  }
}
