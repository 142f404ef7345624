package ax.alert;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * The cluster-wide cap on messages ({@code AX_ALERT_MAX_PER_MINUTE}): of the messages due now, as many
 * are sent as the last minute leaves room for; the rest are suppressed, and once there is room again
 * one summary says what was suppressed (it counts as a message). A flapping alert or a storm of them
 * cannot flood the channel, and nothing is dropped without a word. Pure: counts in, a plan out.
 */
public final class Throttle {
  private Throttle() {
  }

  /**
   * @param send      post these now
   * @param suppress  do not post these; mention them in a later summary
   * @param summarise post one summary of the messages suppressed earlier (it takes one place)
   */
  public record Plan<T>(List<T> send, List<T> suppress, boolean summarise) {
  }

  /**
   * @param sentLastMinute      messages (summaries included) posted cluster-wide in the last minute
   * @param due                 messages due now, oldest first
   * @param suppressedUnreported messages suppressed earlier that no summary has mentioned yet
   */
  public static <T> Plan<T> plan(int sentLastMinute, int maxPerMinute, List<T> due, int suppressedUnreported) {
    int room = Math.max(0, maxPerMinute - sentLastMinute);
    boolean summarise = suppressedUnreported > 0 && room > 0;
    if (summarise) {
      room--;
    }
    int n = Math.min(room, due.size());
    return new Plan<>(List.copyOf(due.subList(0, n)), List.copyOf(due.subList(n, due.size())), summarise);
  }

  /**
   * The summary message: how many were suppressed, by alert and status, e.g. "7 alert messages were
   * suppressed (at most 10 per minute): AxTaskFailedTwice firing ×4, …".
   */
  public static AlertNotice summary(List<AlertNotice> suppressed, int maxPerMinute, long nowMs) {
    Map<String, Integer> counts = new TreeMap<>();
    long first = nowMs;
    for (AlertNotice n : suppressed) {
      counts.merge(n.rule() + " " + n.status().wire(), 1, Integer::sum);
      first = Math.min(first, n.status() == AlertStatus.RESOLVED ? n.resolvedAtMs() : n.startedAtMs());
    }
    StringJoiner parts = new StringJoiner(", ");
    counts.forEach((what, n) -> parts.add(what + " ×" + n));
    String text = String.format(Locale.ROOT, "%d alert message(s) were suppressed (at most %d per minute, "
        + "AX_ALERT_MAX_PER_MINUTE): %s", suppressed.size(), maxPerMinute, parts);
    return new AlertNotice("AxAlertsSuppressed", Severity.P3, AlertStatus.FIRING, text, Map.of(),
        (double) suppressed.size(), first, null);
  }
}
