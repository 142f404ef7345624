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
   * {@code z} may be lower case, as RFC 3339 (5.6) allows.
   */
  public static long parseMillis(String text) throws DateTimeParseException {
    return OffsetDateTime.parse(text.toUpperCase(java.util.Locale.ROOT)).toInstant().truncatedTo(ChronoUnit.MILLIS)
        .toEpochMilli();
  }
}
