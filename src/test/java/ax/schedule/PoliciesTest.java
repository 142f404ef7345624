package ax.schedule;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PoliciesTest {

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
