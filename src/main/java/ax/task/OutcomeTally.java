package ax.task;

import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * What a written batch of outcomes amounts to for the meters (R9): how many attempts succeeded, failed or
 * timed out, how many failed on a retry ({@link Completion#failedAgain}), and the retries each task that
 * reached SUCCESS or FAILED used. Only outcomes the database accepted count: a late result refused by
 * attempt is counted as late, not as an outcome. Lost attempts (fired again) are counted elsewhere.
 */
public final class OutcomeTally {
  private int successes;
  private int failures;
  private int timeouts;
  private int failedAgain;
  private int[] terminalRetries = new int[0];

  private OutcomeTally() {
  }

  /**
   * @param written the outcomes sent to the database
   * @param applied what it accepted (one entry per task whose outcome was written)
   */
  public static OutcomeTally of(Collection<Completion> written, Collection<Settled> applied) {
    Set<Long> accepted = new HashSet<>(applied.size() * 2);
    applied.forEach(s -> accepted.add(s.taskId()));
    OutcomeTally t = new OutcomeTally();
    int[] retries = new int[written.size()];
    int terminal = 0;
    for (Completion c : written) {
      if (!accepted.contains(c.taskId())) {
        continue;
      }
      switch (c.outcome()) {
        case SUCCESS -> t.successes++;
        case FAILED -> t.failures++;
        case TIMED_OUT -> t.timeouts++;
        case LOST -> { }
      }
      if (c.failedAgain()) {
        t.failedAgain++;
      }
      if (c.terminal()) {
        retries[terminal++] = c.retryCount();
      }
    }
    t.terminalRetries = Arrays.copyOf(retries, terminal);
    return t;
  }

  public int successes() {
    return successes;
  }

  /** Attempts that failed, timeouts not included. */
  public int failures() {
    return failures;
  }

  public int timeouts() {
    return timeouts;
  }

  /** Failed or timed-out attempts of tasks already on a retry. */
  public int failedAgain() {
    return failedAgain;
  }

  /** For each task that reached SUCCESS or FAILED: the retries it used. */
  public int[] terminalRetries() {
    return terminalRetries.clone();
  }

  @Override
  public String toString() {
    return "OutcomeTally[successes=" + successes + ", failures=" + failures + ", timeouts=" + timeouts
        + ", failedAgain=" + failedAgain + ", terminalRetries=" + Arrays.toString(terminalRetries) + "]";
  }
}
