package ax.alert;

/**
 * Built-in alerting's settings, validated here (the node's config turns environment variables into
 * this and reports a violation naming the variable).
 *
 * @param evalMs          how often rules are evaluated, figures reported and the outbox looked at
 * @param windowMs        the longest look-back and {@code for} of any rule (Prometheus's values are capped to it)
 * @param maxPerMinute    messages posted per minute, cluster-wide; the rest are summarised once there is room
 * @param leaseTtlMs      the leader lease TTL: how long "no leader" must last before it is an alert
 * @param timeoutMs       one post, connection to last byte
 */
public record AlertSettings(long evalMs, long windowMs, int maxPerMinute, long leaseTtlMs, int timeoutMs) {
  /** Tries per message before it is given up on. */
  public static final int MAX_TRIES = 5;

  public AlertSettings {
    if (evalMs < 10 || windowMs < evalMs || maxPerMinute < 1 || leaseTtlMs < 1 || timeoutMs < 1) {
      throw new IllegalArgumentException("alert settings out of range: " + this);
    }
  }

  /** A node whose last report is older than this no longer counts for gauge rules (clock offset, backlog). */
  public long freshMs() {
    return 3 * evalMs;
  }

  /** Wait before try {@code failedTries + 1}: the evaluation interval, then ×4, ×16, … capped at a minute. */
  public long retryAfterMs(int failedTries) {
    long wait = evalMs;
    for (int i = 1; i < failedTries && wait < 60_000; i++) {
      wait *= 4;
    }
    return Math.min(wait, 60_000);
  }

  /** A claimed message is the claimer's for its try and a margin, so no two nodes post it at once. */
  public long holdMs() {
    return timeoutMs + 5_000L;
  }
}
