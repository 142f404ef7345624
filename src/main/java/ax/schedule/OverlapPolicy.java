package ax.schedule;

/**
 * What an occurrence does when it comes due while the schedule's previous occurrence is not terminal
 * yet (API.md {@code overlap}). The decision is made in PostgreSQL, where both sides of the race are
 * seen under one lock: an occurrence is created held (CREATED) while an earlier one has not ended, and
 * the end of the last one under way lets it go or skips it (V10, {@code ax_schedule_after_occurrence}).
 */
public enum OverlapPolicy {
  /** Runs anyway: occurrences may overlap (default). */
  ALLOW,
  /** Is not run when its due time passes while the previous one runs: SKIPPED (counted in {@code skipped}). */
  SKIP,
  /** Waits until the previous one is terminal, then runs at once; at most one waits — a further one due is SKIPPED. */
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
}
