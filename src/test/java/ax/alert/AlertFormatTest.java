package ax.alert;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Each format's body, byte for byte, for a firing and a resolved notice. */
class AlertFormatTest {
  private static final AlertNotice FIRING = new AlertNotice("AxTaskFailedTwice", Severity.P3, AlertStatus.FIRING,
      "A task \"x\" failed twice", Map.of("target", "http"), 2.0, 0, null);
  private static final AlertNotice RESOLVED = new AlertNotice("AxExecuteFailureRateHigh", Severity.P2,
      AlertStatus.RESOLVED, "50 % fail", Map.of(), 0.125, 60_000, 120_000L);

  @Test
  void slackCarriesOneTextWithStateSeverityRuleAndSummaryFirst() {
    assertEquals("{\"text\":\"[FIRING P3] AxTaskFailedTwice: A task \\\"x\\\" failed twice\\nlabels: target=http"
        + "\\nstarted: 1970-01-01T00:00:00Z\"}", AlertFormat.SLACK.render(FIRING));
  }

  @Test
  void feishuAndDingTalkWrapTheSameTextInTheirOwnShapes() {
    String text = "[RESOLVED P2] AxExecuteFailureRateHigh: 50 % fail\\nstarted: 1970-01-01T00:01:00Z"
        + "\\nresolved: 1970-01-01T00:02:00Z";
    assertEquals("{\"msg_type\":\"text\",\"content\":{\"text\":\"" + text + "\"}}", AlertFormat.FEISHU.render(RESOLVED));
    assertEquals("{\"msgtype\":\"text\",\"text\":{\"content\":\"" + text + "\"}}", AlertFormat.DINGTALK.render(RESOLVED));
  }

  @Test
  void jsonIsAStructuredObject() {
    assertEquals("{\"rule\":\"AxTaskFailedTwice\",\"severity\":\"P3\",\"status\":\"firing\",\"summary\":"
        + "\"A task \\\"x\\\" failed twice\",\"labels\":{\"target\":\"http\"},\"value\":2,"
        + "\"started_at\":\"1970-01-01T00:00:00Z\",\"resolved_at\":null}", AlertFormat.JSON.render(FIRING));
    assertEquals("{\"rule\":\"AxExecuteFailureRateHigh\",\"severity\":\"P2\",\"status\":\"resolved\",\"summary\":"
        + "\"50 % fail\",\"labels\":{},\"value\":0.125,\"started_at\":\"1970-01-01T00:01:00Z\","
        + "\"resolved_at\":\"1970-01-01T00:02:00Z\"}", AlertFormat.JSON.render(RESOLVED));
  }

  @Test
  void theSettingIsParsedCaseInsensitivelyAndAnythingElseIsRefused() {
    assertEquals(AlertFormat.DINGTALK, AlertFormat.parse(" DingTalk "));
    assertThrows(IllegalArgumentException.class, () -> AlertFormat.parse("teams"));
  }

  @Test
  void controlCharactersAreEscaped() {
    AlertNotice n = new AlertNotice("R", Severity.P1, AlertStatus.FIRING, "a\u0001b\tc", Map.of(), null, 0, null);
    assertEquals("{\"rule\":\"R\",\"severity\":\"P1\",\"status\":\"firing\",\"summary\":\"a\\u0001b\\tc\","
        + "\"labels\":{},\"value\":null,\"started_at\":\"1970-01-01T00:00:00Z\",\"resolved_at\":null}",
        AlertFormat.JSON.render(n));
  }
}
