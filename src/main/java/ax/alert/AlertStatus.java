package ax.alert;

import java.util.Locale;

/** What a message says about an alert: it started firing, or it stopped. */
public enum AlertStatus {
  FIRING, RESOLVED;

  /** {@code firing} / {@code resolved}, as the JSON format writes it. */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }
}
