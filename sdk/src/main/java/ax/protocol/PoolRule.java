package ax.protocol;

import java.util.List;

/**
 * The three worker pools an executor runs (high / default / slow, isolated from each other), and the
 * rule the scheduler uses to pick one for a task: priority 7 or more → high; a timeout over 60 s →
 * slow; otherwise default. A handler registered for a fixed pool overrides it on the executor.
 */
public final class PoolRule {
  public static final String HIGH = "high";
  public static final String DEFAULT = "default";
  public static final String SLOW = "slow";
  public static final List<String> NAMES = List.of(HIGH, DEFAULT, SLOW);

  public static final int HIGH_PRIORITY_MIN = 7;
  public static final long SLOW_TIMEOUT_MS = 60_000;

  private PoolRule() {
  }

  public static String forTask(int priority, long timeoutMs) {
    if (priority >= HIGH_PRIORITY_MIN) {
      return HIGH;
    }
    return timeoutMs > SLOW_TIMEOUT_MS ? SLOW : DEFAULT;
  }
}
