package ax.schedule;

/**
 * What an occurrence does when it comes due while the schedule's previous occurrence is not terminal
 * yet (API.md {@code overlap}).
 */
public enum OverlapPolicy {
  /** Runs anyway: occurrences may overlap (default). */
  ALLOW,
  /** Is not run: created SKIPPED, with the running occurrence named in its error. */
  SKIP,
  /** Waits until the previous one is terminal, then runs; at most one waits — a further one is SKIPPED. */
  BUFFER_ONE;

  public String wire() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** @throws IllegalArgumentException for anything but {@code allow}, {@code skip}, {@code buffer_one} */
  public static OverlapPolicy fromWire(String value) {
    for (OverlapPolicy p : values()) {
      if (p.wire().equals(value)) {
        return p;
      }
    }
    throw new IllegalArgumentException("overlap: must be one of allow, skip, buffer_one");
  }

  /** What to do with an occurrence that comes due now. */
  public Decision decide(boolean previousRunning, boolean oneAlreadyWaiting) {
    if (!previousRunning || this == ALLOW) {
      return Decision.RUN;
    }
    if (this == BUFFER_ONE && !oneAlreadyWaiting) {
      return Decision.WAIT;
    }
    return Decision.SKIP;
  }

  /** RUN: an ordinary task; WAIT: held until the previous occurrence is terminal; SKIP: created SKIPPED. */
  public enum Decision { RUN, WAIT, SKIP }
}
