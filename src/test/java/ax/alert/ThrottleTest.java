package ax.alert;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ThrottleTest {
  @Test
  void whatTheLastMinuteLeavesRoomForIsSentAndTheRestSuppressed() {
    Throttle.Plan<String> p = Throttle.plan(8, 10, List.of("a", "b", "c", "d"), 0);
    assertEquals(List.of("a", "b"), p.send());
    assertEquals(List.of("c", "d"), p.suppress());
    assertFalse(p.summarise());
  }

  @Test
  void aSummaryOfEarlierSuppressionsTakesOnePlaceBeforeNewMessages() {
    Throttle.Plan<String> p = Throttle.plan(8, 10, List.of("a", "b"), 5);
    assertTrue(p.summarise());
    assertEquals(List.of("a"), p.send());
    assertEquals(List.of("b"), p.suppress());
  }

  @Test
  void withNoRoomNothingIsSentNotEvenTheSummary() {
    Throttle.Plan<String> p = Throttle.plan(12, 10, List.of("a"), 3);
    assertEquals(List.of(), p.send());
    assertEquals(List.of("a"), p.suppress());
    assertFalse(p.summarise());
  }

  @Test
  void theSummarySaysHowManyOfWhichAlertsWereSuppressed() {
    AlertNotice f = new AlertNotice("AxTaskFailedTwice", Severity.P3, AlertStatus.FIRING, "s", Map.of(), 1.0, 5_000, null);
    AlertNotice r = new AlertNotice("AxTaskFailedTwice", Severity.P3, AlertStatus.RESOLVED, "s", Map.of(), 1.0, 5_000,
        9_000L);
    AlertNotice s = Throttle.summary(List.of(f, f, r), 10, 20_000);
    assertEquals("AxAlertsSuppressed", s.rule());
    assertEquals("3 alert message(s) were suppressed (at most 10 per minute, AX_ALERT_MAX_PER_MINUTE): "
        + "AxTaskFailedTwice firing ×2, AxTaskFailedTwice resolved ×1", s.summary());
    assertEquals(3.0, s.value());
    assertEquals(5_000, s.startedAtMs());
  }
}
