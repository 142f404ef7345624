package ax.alert;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rules' conditions over the leader's window of the nodes' reported figures, with a set clock. */
class AlertRulesTest {
  private static final AlertSettings SETTINGS = new AlertSettings(1_000, 300_000, 10, 30_000, 5_000);

  private static NodeFigures outcomes(String node, long success, long failure, long timeout) {
    return new NodeFigures(node, success, failure, timeout, Map.of(), 0, new long[17], 0, 0);
  }

  private static NodeFigures lateness(String node, long countAtBucket, int bucket) {
    long[] b = new long[17];
    b[bucket] = countAtBucket;
    return new NodeFigures(node, 0, 0, 0, Map.of(), 0, b, 0, 0);
  }

  @Test
  void theFailureRateAddsUpEveryNodesOutcomesOverTheLookBack() {
    FigureWindow w = new FigureWindow(0);
    w.add(1_000, outcomes("a", 90, 5, 0));
    w.add(1_000, outcomes("b", 0, 4, 1)); // 10 of 100: not above 10 %
    assertTrue(AlertRules.failureRate(w, 2_000, SETTINGS).holding().isEmpty());
    w.add(2_000, outcomes("b", 0, 1, 0)); // 11 of 101
    Observation o = AlertRules.failureRate(w, 2_500, SETTINGS);
    assertEquals(11.0 / 101, o.holding().get("").value(), 1e-9);
    assertEquals(List.of(), AlertRules.failureRate(w, 302_000, SETTINGS).holding().values().stream().toList(),
        "the failures left the 5-minute look-back");
  }

  @Test
  void withoutAttemptsTheFailureRateIsJudgedOnlyOnceTheWholeLookBackWasCollected() {
    FigureWindow w = new FigureWindow(0);
    assertFalse(AlertRules.failureRate(w, 299_999, SETTINGS).complete(), "a new leader: unknown, keeps the state");
    assertTrue(AlertRules.failureRate(w, 300_000, SETTINGS).complete());
  }

  @Test
  void theP99DelayIsInterpolatedInItsBucketLikeHistogramQuantile() {
    NodeFigures f = lateness("a", 100, 10); // all in (1 s, 2 s]
    assertEquals(1_990, f.delayQuantileMs(0.99), 1e-6);
    assertEquals(60_000, lateness("a", 5, 16).delayQuantileMs(0.99), 1e-6, "above every bound: the last bound");
    assertTrue(Double.isNaN(NodeFigures.zero("a").delayQuantileMs(0.99)));
  }

  @Test
  void delayAboveTwoSecondsHoldsTheP2RuleAndAboveTenTheP1RuleToo() {
    FigureWindow w = new FigureWindow(0);
    w.add(1_000, lateness("a", 100, 12)); // (2.5 s, 5 s]
    List<Observation> o = AlertRules.delay(w, 1_000, SETTINGS);
    assertEquals(1, o.get(0).holding().size());
    assertTrue(o.get(1).holding().isEmpty());
    w.add(2_000, lateness("a", 10_000, 15)); // (30 s, 60 s]
    o = AlertRules.delay(w, 2_000, SETTINGS);
    assertEquals(1, o.get(1).holding().size());
    assertEquals(AlertRule.SCHEDULE_DELAY_CRITICAL, o.get(1).rule());
  }

  @Test
  void failedTwiceIsKeyedByTargetAndClockOffsetByNode() {
    FigureWindow w = new FigureWindow(0);
    w.add(1_000, new NodeFigures("a", 0, 0, 0, Map.of("http", 2L), 0, new long[17], 51, 0));
    w.add(1_000, new NodeFigures("b", 0, 0, 0, Map.of(), 0, new long[17], -10, 0));
    assertEquals(Map.of("target", "http"), AlertRules.failedTwice(w, 1_500, SETTINGS).holding().get("http").labels());
    assertEquals(List.of("a"), List.copyOf(AlertRules.clockOffset(w, 1_500, SETTINGS).holding().keySet()));
    assertTrue(AlertRules.clockOffset(w, 5_000, SETTINGS).holding().isEmpty(), "a node that stopped reporting");
  }

  @Test
  void aGrowingWebhookBacklogHoldsAndAShrinkingOneDoesNot() {
    FigureWindow w = new FigureWindow(0);
    w.add(1_000, new NodeFigures("a", 0, 0, 0, Map.of(), 0, new long[17], 0, 5));
    assertTrue(AlertRules.webhookBacklog(w, 1_000, SETTINGS).holding().isEmpty(), "one sample: no growth yet");
    w.add(2_000, new NodeFigures("a", 0, 0, 0, Map.of(), 0, new long[17], 0, 9));
    assertEquals(9.0, AlertRules.webhookBacklog(w, 2_000, SETTINGS).holding().get("").value());
    w.add(3_000, new NodeFigures("a", 0, 0, 0, Map.of(), 0, new long[17], 0, 2));
    assertTrue(AlertRules.webhookBacklog(w, 3_000, SETTINGS).holding().isEmpty());
  }

  @Test
  void noLeaderAndSkipsAreJudgedFromTheDatabaseAndAlwaysComplete() {
    assertEquals(1, AlertRules.noLeader(false, 30_000).holding().size());
    assertTrue(AlertRules.noLeader(true, 30_000).holding().isEmpty());
    Observation s = AlertRules.skipped(List.of(new AlertRules.Skips("t1", 2, List.of(7L, 8L), "dependency 6 ended FAILED")),
        SETTINGS);
    assertTrue(s.complete());
    assertEquals("2 task(s) of tenant t1 SKIPPED by a dependency in the last 5 min, e.g. [7, 8] (dependency 6 ended FAILED)",
        s.holding().get("t1").summary());
  }

  @Test
  void lookBacksAndForDurationsAreCappedByTheWindowAndNoLeaderWaitsTheLeaseTtl() {
    AlertSettings fast = new AlertSettings(100, 2_000, 10, 3_000, 1_000);
    assertEquals(2_000, AlertRule.EXECUTE_FAILURE_RATE_HIGH.forMs(fast));
    assertEquals(300_000, AlertRule.EXECUTE_FAILURE_RATE_HIGH.forMs(SETTINGS));
    assertEquals(60_000, AlertRule.SCHEDULE_DELAY_HIGH.lookbackMs(SETTINGS));
    assertEquals(3_000, AlertRule.NO_LEADER.forMs(fast));
    assertEquals(0, AlertRule.TASK_FAILED_TWICE.forMs(SETTINGS));
  }
}
