package ax.bench.peers;

/**
 * The trigger times of one phase: task {@code i} of {@code n} is due at
 * {@code firstDueMs + i * windowMs / (n - 1)}. A burst has {@code windowMs = 0}. Both sides of the peer
 * protocol compute the times from these three numbers, so a phase is described in one line.
 */
public record Schedule(int n, long firstDueMs, long windowMs) {
  public long trigger(int i) {
    return n <= 1 ? firstDueMs : firstDueMs + (long) i * windowMs / (n - 1);
  }

  public long lastDueMs() {
    return trigger(n - 1);
  }
}
