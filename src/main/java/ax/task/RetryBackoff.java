package ax.task;

import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * How long to wait before each retry of a failed task (R4: 10 s, 30 s, 60 s by default). A list
 * rather than a formula, because operators think in concrete steps ("retry after 10 s, then 30 s")
 * and the article's schedule is not a clean exponential. Retries beyond the list reuse its last delay;
 * how many retries there are at all is {@code max_retry}'s business, not this class's.
 *
 * <p>Immutable.
 */
public final class RetryBackoff {

  private static final Pattern PART = Pattern.compile("(\\d{1,18})(ms|s|m)?");

  private final long[] delaysMs;

  private RetryBackoff(long[] delaysMs) {
    this.delaysMs = delaysMs;
  }

  /** A backoff with these delays for retry 1, 2, …; at least one, none negative. */
  public static RetryBackoff of(long... delaysMs) {
    if (delaysMs == null || delaysMs.length == 0) {
      throw new IllegalArgumentException("retry backoff needs at least one delay");
    }
    for (long delay : delaysMs) {
      if (delay < 0) {
        throw new IllegalArgumentException("retry backoff delay must not be negative, was " + delay);
      }
    }
    return new RetryBackoff(delaysMs.clone());
  }

  /**
   * Parses a comma-separated list of delays such as {@code "10s,30s,60s"} or {@code "10000,30000"}.
   * Each part is a whole number with an optional unit: {@code ms} (the default), {@code s} or
   * {@code m}; spaces around parts are ignored.
   *
   * @throws IllegalArgumentException naming the offending part when the text is blank or a part is
   *                                  not a delay
   */
  public static RetryBackoff parse(String spec) {
    if (spec == null || spec.isBlank()) {
      throw new IllegalArgumentException("retry backoff is blank; expected e.g. \"10s,30s,60s\"");
    }
    String[] parts = spec.split(",", -1);
    long[] delays = new long[parts.length];
    for (int i = 0; i < parts.length; i++) {
      delays[i] = parseDelay(parts[i].trim());
    }
    return new RetryBackoff(delays);
  }

  /** The default schedule: 10 s, 30 s, 60 s. */
  public static RetryBackoff defaults() {
    return of(10_000, 30_000, 60_000);
  }

  /**
   * The delay before retry number {@code retryNumber} (1 = the first retry); past the end of the
   * list, the last delay.
   */
  public long delayMs(int retryNumber) {
    if (retryNumber < 1) {
      throw new IllegalArgumentException("retry number starts at 1, was " + retryNumber);
    }
    return delaysMs[Math.min(retryNumber, delaysMs.length) - 1];
  }

  /** Equal when the delays are, so configs holding a backoff compare by value. */
  @Override
  public boolean equals(Object other) {
    return other instanceof RetryBackoff backoff && Arrays.equals(delaysMs, backoff.delaysMs);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(delaysMs);
  }

  /** The delays in milliseconds, e.g. {@code "10000ms,30000ms,60000ms"}: loggable, and {@link #parse} reads it back. */
  @Override
  public String toString() {
    return Arrays.stream(delaysMs).mapToObj(delay -> delay + "ms").collect(Collectors.joining(","));
  }

  private static long parseDelay(String part) {
    Matcher matcher = PART.matcher(part);
    if (!matcher.matches()) {
      throw new IllegalArgumentException(
          "retry backoff part \"" + part + "\" is not a delay; expected e.g. 10s, 500ms, 2m or 10000");
    }
    long amount = Long.parseLong(matcher.group(1));
    String unit = matcher.group(2) == null ? "ms" : matcher.group(2);
    long factor = switch (unit) {
      case "s" -> 1_000L;
      case "m" -> 60_000L;
      default -> 1L;
    };
    try {
      return Math.multiplyExact(amount, factor);
    } catch (ArithmeticException overflow) {
      throw new IllegalArgumentException("retry backoff part \"" + part + "\" is too large", overflow);
    }
  }
}
