package ax.ratelimit;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A per-key rate limit as configured ({@code AX_RATE_LIMIT}, or a key's own limit): requests per
 * second and the burst a {@link TokenBucket} allows.
 *
 * @param ratePerSecond sustained requests per second; positive
 * @param burst         most requests accepted at once after idling; at least 1
 */
public record RateLimitSpec(double ratePerSecond, double burst) {

  private static final Pattern SPEC = Pattern.compile("(\\d+(?:\\.\\d+)?)(?:/(\\d+(?:\\.\\d+)?))?");

  /** Rejects limits no bucket could enforce, naming the bad value. */
  public RateLimitSpec {
    if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
      throw new IllegalArgumentException("rate limit rate must be a positive number, was " + ratePerSecond);
    }
    if (!(burst >= 1) || Double.isInfinite(burst)) {
      throw new IllegalArgumentException("rate limit burst must be at least 1, was " + burst);
    }
  }

  /** {@code "rate/burst"}, e.g. {@code "20/20"}: what {@link #parse} reads back. */
  @Override
  public String toString() {
    return number(ratePerSecond) + "/" + number(burst);
  }

  private static String number(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
  }

  /**
   * Parses {@code "rate"} (burst = rate, but at least 1) or {@code "rate/burst"}, e.g. {@code "20"}
   * or {@code "20/40"}; plain decimal numbers, spaces around the whole ignored.
   *
   * @throws IllegalArgumentException naming the text when it is not of that form or not positive
   */
  public static RateLimitSpec parse(String spec) {
    String text = spec == null ? "" : spec.trim();
    Matcher matcher = SPEC.matcher(text);
    if (!matcher.matches()) {
      throw new IllegalArgumentException(
          "rate limit \"" + spec + "\" is not \"rate\" or \"rate/burst\", e.g. \"20\" or \"20/40\"");
    }
    double rate = Double.parseDouble(matcher.group(1));
    double burst = matcher.group(2) == null ? Math.max(1, rate) : Double.parseDouble(matcher.group(2));
    try {
      return new RateLimitSpec(rate, burst);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("rate limit \"" + spec + "\": " + e.getMessage(), e);
    }
  }
}
