package ax.store;

import ax.wheel.ScheduledTask;

import java.util.ArrayList;
import java.util.List;

/**
 * The notifications PostgreSQL sends when a trigger lets held tasks go (V10): a dependency child whose
 * last parent succeeded, an occurrence the overlap policy released. They are sent on commit only, so
 * an announced task is really due-able; one that is missed (no leader listening at that moment) is found
 * by the recovery scan.
 */
public final class ReadyAnnouncements {
  /** Tasks let go: {@code id:trigger_ms:priority} entries, comma separated (V10 ax_announce_ready). */
  public static final String READY_CHANNEL = "ax_ready";
  /** Tasks a failed dependency SKIPPED: the payload is their count (each has an alert_events row). */
  public static final String SKIPPED_CHANNEL = "ax_skipped";

  private ReadyAnnouncements() {
  }

  /**
   * The tasks of one announcement.
   *
   * @throws IllegalArgumentException when the payload is not what V10 sends
   */
  public static List<ScheduledTask> parse(String payload) {
    List<ScheduledTask> out = new ArrayList<>();
    if (payload == null || payload.isEmpty()) {
      return out;
    }
    for (String entry : payload.split(",")) {
      String[] f = entry.split(":");
      if (f.length != 3) {
        throw new IllegalArgumentException("not an ax_ready entry: " + entry);
      }
      try {
        out.add(new ScheduledTask(Long.parseLong(f[0]), Long.parseLong(f[1]), Integer.parseInt(f[2])));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not an ax_ready entry: " + entry, e);
      }
    }
    return out;
  }

  /** The count an {@link #SKIPPED_CHANNEL} notification carries; 0 when it is unreadable. */
  public static long skippedCount(String payload) {
    try {
      return Math.max(0, Long.parseLong(payload));
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
