package ax.alert;

import java.util.Map;
import java.util.TreeMap;

/**
 * One message about one alert episode: it fired, or it resolved. What every format renders
 * ({@link AlertFormat}); stored as it is in the outbox so that whichever node sends it sends the same.
 *
 * @param value        the figure that made it fire (a ratio, seconds, a count); null when there is none
 * @param startedAtMs  when the condition started to hold (the pending phase included, like Prometheus)
 * @param resolvedAtMs when it stopped; null while firing
 */
public record AlertNotice(String rule, Severity severity, AlertStatus status, String summary,
                          Map<String, String> labels, Double value, long startedAtMs, Long resolvedAtMs) {
  public AlertNotice {
    labels = Map.copyOf(labels);
    if ((status == AlertStatus.RESOLVED) != (resolvedAtMs != null)) {
      throw new IllegalArgumentException("resolved_at is set exactly when the alert resolved: " + status);
    }
  }

  /** Labels in name order, so every rendering of one notice is the same text. */
  public Map<String, String> sortedLabels() {
    return new TreeMap<>(labels);
  }
}
