package ax.schedule;

/**
 * What happens to occurrences whose due time passed more than the misfire threshold ago before the
 * leader could create them — after downtime, a pause, or a leader that fell behind (API.md
 * {@code misfire}). Missed occurrences that are not fired are never silently dropped: they are counted
 * and recorded as misfired.
 */
public enum MisfirePolicy {
  /** One occurrence now, for the latest missed time; the others are recorded as misfired (default). */
  FIRE_ONCE,
  /**
   * Every missed occurrence now, in order — at most {@link ScheduleSettings#fireAllCap()} of them, the
   * latest; older ones are recorded as misfired.
   */
  FIRE_ALL,
  /** None: every missed occurrence is recorded as misfired; the schedule goes on from now. */
  SKIP;

  public String wire() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** @throws IllegalArgumentException for anything but {@code fire_once}, {@code fire_all}, {@code skip} */
  public static MisfirePolicy fromWire(String value) {
    for (MisfirePolicy p : values()) {
      if (p.wire().equals(value)) {
        return p;
      }
    }
    throw new IllegalArgumentException("misfire: must be one of fire_once, fire_all, skip");
  }
}
