package ax.schedule;

import java.time.Instant;
import java.util.Optional;

/**
 * When a schedule's occurrences are due, as far as that can be known in advance: a cron rule or a fixed
 * rate. (A fixed delay depends on when the previous occurrence ended, so it has no such sequence; see
 * {@link FixedDelay}.)
 */
public sealed interface Recurrence permits CronRule.AsRecurrence, FixedRate {

  /** The first due time strictly after {@code after}, or empty when there is none. */
  Optional<Instant> nextAfter(Instant after);

  /**
   * How many due times lie in {@code (after, until]}, when that can be computed without visiting each
   * (a fixed rate); empty otherwise.
   */
  default Optional<Long> countBetween(Instant after, Instant until) {
    return Optional.empty();
  }
}
