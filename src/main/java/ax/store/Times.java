package ax.store;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** Conversions between epoch milliseconds (used in memory) and timestamptz values (used in SQL). */
public final class Times {
  private Times() {
  }

  public static OffsetDateTime toTimestamp(long epochMillis) {
    return OffsetDateTime.ofInstant(Instant.ofEpochMilli(epochMillis), ZoneOffset.UTC);
  }

  /** Null stays null (an optional column). */
  public static OffsetDateTime toTimestamp(Instant t) {
    return t == null ? null : OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
  }

  public static long toMillis(OffsetDateTime t) {
    return t.toInstant().toEpochMilli();
  }
}
