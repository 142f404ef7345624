package ax.alert;

/** How urgent an alert is, as the Prometheus rules label it: P1 act now, P2 degraded, P3 look today. */
public enum Severity {
  P1, P2, P3
}
