package ax.alert;

import java.util.Optional;

/**
 * The rules ax evaluates itself, the same conditions as docker/prometheus/rules/ax-alerts.yml (names,
 * thresholds, severities, {@code for} durations). {@code AxTaskSkippedByDependency} is per tenant here
 * and names some tasks (alert_events); its Prometheus twin counts all tenants together (metrics carry no
 * tenant).
 * Look-backs and {@code for} durations are Prometheus's, capped at {@code AX_ALERT_WINDOW_MS} so a test
 * (or an operator who wants faster alerts) can shorten them all with one setting; the no-leader rule
 * waits the lease TTL, as its Prometheus twin does.
 */
public enum AlertRule {
  SCHEDULE_DELAY_HIGH("AxScheduleDelayHigh", Severity.P2, 60_000, 60_000),
  SCHEDULE_DELAY_CRITICAL("AxScheduleDelayCritical", Severity.P1, 60_000, 60_000),
  EXECUTE_FAILURE_RATE_HIGH("AxExecuteFailureRateHigh", Severity.P2, 300_000, 300_000),
  TASK_FAILED_TWICE("AxTaskFailedTwice", Severity.P3, 0, 300_000),
  EXECUTOR_OFFLINE("AxExecutorOffline", Severity.P2, 0, 300_000),
  NO_LEADER("AxNoLeader", Severity.P1, -1, 0),
  CLOCK_OFFSET("AxClockOffset", Severity.P3, 120_000, 0),
  WEBHOOK_BACKLOG_GROWING("AxWebhookBacklogGrowing", Severity.P3, 600_000, 600_000),
  TASK_SKIPPED_BY_DEPENDENCY("AxTaskSkippedByDependency", Severity.P3, 0, 300_000);

  /** Failures and timeouts over all outcomes above this fire {@link #EXECUTE_FAILURE_RATE_HIGH}. */
  public static final double FAILURE_RATIO = 0.10;
  public static final long DELAY_HIGH_MS = 2_000;
  public static final long DELAY_CRITICAL_MS = 10_000;
  public static final double CLOCK_OFFSET_MS = 50;

  private final String alertName;
  private final Severity severity;
  private final long prometheusForMs;
  private final long prometheusLookbackMs;

  AlertRule(String alertName, Severity severity, long prometheusForMs, long prometheusLookbackMs) {
    this.alertName = alertName;
    this.severity = severity;
    this.prometheusForMs = prometheusForMs;
    this.prometheusLookbackMs = prometheusLookbackMs;
  }

  /** The alert's name in messages and in alert_state, the Prometheus rule's {@code alert:}. */
  public String alertName() {
    return alertName;
  }

  public Severity severity() {
    return severity;
  }

  /** How long the condition must hold before the alert fires. */
  public long forMs(AlertSettings s) {
    return this == NO_LEADER ? s.leaseTtlMs() : Math.min(prometheusForMs, s.windowMs());
  }

  /** How far back the rule's rate or count looks (0: a gauge, read as it is now). */
  public long lookbackMs(AlertSettings s) {
    return Math.min(prometheusLookbackMs, s.windowMs());
  }

  public static Optional<AlertRule> byName(String alertName) {
    for (AlertRule r : values()) {
      if (r.alertName.equals(alertName)) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }
}
