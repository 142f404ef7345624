package ax.alert;

import ax.alert.AlertTracker.Fire;
import ax.alert.AlertTracker.Resolve;
import ax.alert.Observation.Sample;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The per-alert state machine, driven by hand-made observations and a clock the test sets. */
class AlertTrackerTest {
  private static final AlertRule RULE = AlertRule.EXECUTE_FAILURE_RATE_HIGH;
  private static final Sample S = new Sample(0.5, Map.of(), "50 %");
  private final AlertTracker tracker = new AlertTracker();

  private static Observation holds() {
    return Observation.one(RULE, S);
  }

  @Test
  void anAlertFiresOnlyAfterItsConditionHeldForTheWholeForDuration() {
    assertEquals(List.of(), tracker.observe(holds(), 1_000, 5_000));
    assertTrue(tracker.isPending(RULE, ""));
    assertEquals(List.of(), tracker.observe(holds(), 5_999, 5_000));
    List<AlertTracker.Transition> t = tracker.observe(holds(), 6_000, 5_000);
    assertEquals(List.of(new Fire(RULE, "", S, 1_000)), t, "fires once held for 5 s, started when it began to hold");
    assertEquals(List.of(), tracker.observe(holds(), 7_000, 5_000), "one firing message per episode");
  }

  @Test
  void aPendingAlertWhoseConditionStopsGoesBackToInactiveWithoutAMessage() {
    tracker.observe(holds(), 1_000, 5_000);
    assertEquals(List.of(), tracker.observe(Observation.none(RULE, true), 2_000, 5_000));
    assertEquals(List.of(), tracker.observe(holds(), 3_000, 5_000));
    assertEquals(List.of(), tracker.observe(holds(), 7_000, 5_000), "the pending time restarted at 3 s");
    assertEquals(1, tracker.observe(holds(), 8_000, 5_000).size());
  }

  @Test
  void aFiringAlertResolvesOnceWhenACompleteObservationNoLongerListsIt() {
    tracker.observe(holds(), 0, 0);
    List<AlertTracker.Transition> t = tracker.observe(Observation.none(RULE, true), 1_000, 0);
    assertEquals(List.of(new Resolve(RULE, "", 0.5)), t);
    assertEquals(List.of(), tracker.observe(Observation.none(RULE, true), 2_000, 0), "one resolved message");
    assertInstanceOf(Fire.class, tracker.observe(holds(), 3_000, 0).get(0), "a new episode fires again");
  }

  @Test
  void anIncompleteObservationKeepsAFiringAlertFiring() {
    tracker.restoreFiring(RULE, "", 0, 0.4);
    assertEquals(List.of(), tracker.observe(Observation.none(RULE, false), 1_000, 0));
    assertTrue(tracker.isFiring(RULE, ""));
    assertEquals(List.of(), tracker.observe(holds(), 2_000, 0), "restored: already firing, not fired again");
    assertEquals(List.of(new Resolve(RULE, "", 0.5)), tracker.observe(Observation.none(RULE, true), 3_000, 0));
  }

  @Test
  void keysAreIndependentEpisodes() {
    AlertRule r = AlertRule.TASK_FAILED_TWICE;
    Sample http = new Sample(1, Map.of("target", "http"), "h");
    Sample exec = new Sample(2, Map.of("target", "executor"), "e");
    assertEquals(1, tracker.observe(new Observation(r, Map.of("http", http), true), 0, 0).size());
    List<AlertTracker.Transition> t = tracker.observe(new Observation(r, Map.of("executor", exec), true), 10, 0);
    assertEquals(List.of(new Fire(r, "executor", exec, 10), new Resolve(r, "http", 1.0)), t);
  }

  @Test
  void anUndoneFireIsMadeAgainAtTheNextEvaluationAndAnUndoneResolveToo() {
    Fire f = (Fire) tracker.observe(holds(), 0, 0).get(0);
    tracker.undo(f);
    assertEquals(List.of(new Fire(RULE, "", S, 0)), tracker.observe(holds(), 1_000, 0));
    Resolve r = (Resolve) tracker.observe(Observation.none(RULE, true), 2_000, 0).get(0);
    tracker.undo(r);
    assertEquals(1, tracker.observe(Observation.none(RULE, true), 3_000, 0).size());
  }
}
