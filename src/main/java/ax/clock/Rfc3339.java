package ax.clock;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/** RFC 3339 timestamps with exactly millisecond precision, always in UTC, as the API shows them. */
public final class Rfc3339 {
  private static final DateTimeFormatter FORMAT =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private Rfc3339() {
  }

  public static String format(long epochMillis) {
    return FORMAT.format(Instant.ofEpochMilli(epochMillis));
  }

  public static String format(OffsetDateTime t) {
    return t == null ? null : format(t.toInstant().toEpochMilli());
  }

  /** Parses an RFC 3339 date-time with offset; sub-millisecond digits are truncated. */
  public static long parseMillis(String text) throws DateTimeParseException {
    return OffsetDateTime.parse(text).toInstant().truncatedTo(ChronoUnit.MILLIS).toEpochMilli();
  }
}
