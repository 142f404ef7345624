package ax.schedule;

import java.time.Instant;
import java.util.Optional;

/** Occurrences at {@code anchor + k · everyMs}, k ≥ 0 (API.md {@code every_ms}); pure. */
public record FixedRate(Instant anchor, long everyMs) implements Recurrence {
  public FixedRate {
    if (anchor == null) {
      throw new IllegalArgumentException("a fixed rate needs an anchor");
    }
    if (everyMs < 1) {
      throw new IllegalArgumentException("every_ms: must be at least 1, was " + everyMs);
    }
  }

  @Override
  public Optional<Instant> nextAfter(Instant after) {
    long sinceAnchor = after.toEpochMilli() - anchor.toEpochMilli();
    if (sinceAnchor < 0) {
      return Optional.of(anchor);
    }
    long k = sinceAnchor / everyMs + 1;
    return Optional.of(anchor.plusMillis(Math.multiplyExact(k, everyMs)));
  }

  @Override
  public Optional<Long> countBetween(Instant after, Instant until) {
    if (!until.isAfter(after)) {
      return Optional.of(0L);
    }
    return Optional.of(index(until) - index(after));
  }

  /** How many due times are at or before {@code t}. */
  private long index(Instant t) {
    long sinceAnchor = t.toEpochMilli() - anchor.toEpochMilli();
    return sinceAnchor < 0 ? 0 : sinceAnchor / everyMs + 1;
  }
}
