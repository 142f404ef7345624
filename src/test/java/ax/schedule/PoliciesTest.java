package ax.schedule;

import ax.schedule.OverlapPolicy.Decision;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PoliciesTest {

  @Test
  void withNothingRunningEveryOverlapPolicyRuns() {
    for (OverlapPolicy p : OverlapPolicy.values()) {
      assertEquals(Decision.RUN, p.decide(false, false), p.name());
    }
  }

  @Test
  void allowRunsOverlappingOccurrences() {
    assertEquals(Decision.RUN, OverlapPolicy.ALLOW.decide(true, true));
  }

  @Test
  void skipCreatesTheOverlappingOccurrenceSkipped() {
    assertEquals(Decision.SKIP, OverlapPolicy.SKIP.decide(true, false));
  }

  @Test
  void bufferOneHoldsOneAndSkipsTheNext() {
    assertEquals(Decision.WAIT, OverlapPolicy.BUFFER_ONE.decide(true, false));
    assertEquals(Decision.SKIP, OverlapPolicy.BUFFER_ONE.decide(true, true));
  }

  @Test
  void wireNamesRoundTripAndAnythingElseIsRefusedNamingTheField() {
    for (MisfirePolicy p : MisfirePolicy.values()) {
      assertEquals(p, MisfirePolicy.fromWire(p.wire()));
    }
    for (OverlapPolicy p : OverlapPolicy.values()) {
      assertEquals(p, OverlapPolicy.fromWire(p.wire()));
    }
    assertEquals("misfire: must be one of fire_once, fire_all, skip",
        assertThrows(IllegalArgumentException.class, () -> MisfirePolicy.fromWire("FIRE_ONCE")).getMessage());
    assertEquals("overlap: must be one of allow, skip, buffer_one",
        assertThrows(IllegalArgumentException.class, () -> OverlapPolicy.fromWire(null)).getMessage());
  }
}
