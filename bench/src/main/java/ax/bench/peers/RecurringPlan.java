package ax.bench.peers;

/**
 * The recurring schedules of one phase: {@code n} schedules, each firing every {@code periodMs} for
 * {@code slots} occurrences. Schedule {@code i} first fires at {@link #anchor(int)}:
 * {@code firstDueMs} for all of them when {@code aligned} (cron {@code * * * * * *}: the n occurrences of a
 * second are due at the same millisecond), else {@code firstDueMs + i·periodMs/n} (fixed rate with staggered
 * starts: the occurrences of each period spread evenly over it, the shape of the one-shot {@code spread}).
 * Occurrence {@code k} of schedule {@code i} is due at {@code anchor(i) + k·periodMs}, k = 0 … slots−1.
 * Both sides of the peer protocol derive every due time from these five numbers.
 */
public record RecurringPlan(int n, long firstDueMs, long periodMs, int slots, boolean aligned) {
  public RecurringPlan {
    if (n < 1 || slots < 1 || periodMs < 1) {
      throw new IllegalArgumentException("a recurring plan needs n, slots and period ≥ 1");
    }
  }

  public long anchor(int i) {
    return aligned ? firstDueMs : firstDueMs + (long) i * periodMs / n;
  }

  public long due(int i, int k) {
    return anchor(i) + (long) k * periodMs;
  }

  /** The last due time of schedule i (inclusive end of its window). */
  public long lastDue(int i) {
    return due(i, slots - 1);
  }

  /** The last due time of the whole phase. */
  public long lastDueMs() {
    return lastDue(n - 1);
  }

  public long expected() {
    return (long) n * slots;
  }

  /** One line for the peer protocol and the reports. */
  public String describe() {
    return n + " schedules every " + periodMs + " ms × " + slots + " occurrences ("
        + (aligned ? "all due at the same instant each period" : "starts staggered evenly over the period") + ")";
  }
}
