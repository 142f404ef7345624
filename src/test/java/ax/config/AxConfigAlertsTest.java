package ax.config;

import ax.alert.AlertFormat;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** AX_ALERT_*: off unless a URL is set, json by default, and a bad value stops the node naming it. */
class AxConfigAlertsTest {
  private static AxConfig.AlertConfig alerts(String... kv) {
    Map<String, String> env = new HashMap<>(Map.of("AX_PG_URL", "postgresql://postgres@127.0.0.1:5432/ax"));
    for (int i = 0; i < kv.length; i += 2) {
      env.put(kv[i], kv[i + 1]);
    }
    return AxConfig.fromEnv(env, false).alerts();
  }

  @Test
  void alertingIsOffWithoutAUrlAndJsonByDefault() {
    assertFalse(alerts().enabled());
    AxConfig.AlertConfig on = alerts("AX_ALERT_WEBHOOK_URL", "https://hooks.slack.com/services/T/B/x");
    assertTrue(on.enabled());
    assertEquals(AlertFormat.JSON, on.format());
    assertEquals(AlertFormat.FEISHU, alerts("AX_ALERT_FORMAT", "feishu").format());
  }

  @Test
  void badValuesAreRefusedWithTheVariableNamed() {
    assertTrue(assertThrows(ConfigException.class, () -> alerts("AX_ALERT_FORMAT", "teams")).getMessage()
        .startsWith("AX_ALERT_FORMAT=teams is invalid"));
    assertTrue(assertThrows(ConfigException.class, () -> alerts("AX_ALERT_WEBHOOK_URL", "ftp://x/y")).getMessage()
        .startsWith("AX_ALERT_WEBHOOK_URL=ftp://x/y must be an absolute http"));
    assertTrue(assertThrows(ConfigException.class, () -> alerts("AX_ALERT_EVAL_MS", "5000", "AX_ALERT_WINDOW_MS", "2000"))
        .getMessage().startsWith("AX_ALERT_WINDOW_MS (2000) must be at least AX_ALERT_EVAL_MS"));
    assertTrue(assertThrows(ConfigException.class, () -> alerts("AX_ALERT_MAX_PER_MINUTE", "0")).getMessage()
        .contains("AX_ALERT_MAX_PER_MINUTE=0 is outside"));
  }
}
