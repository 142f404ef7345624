package ax.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ClaimGateTest {

  @Test
  void aClosedGateRefusesNewClaimsAndCountsDownTheOnesInFlight() {
    ClaimGate gate = new ClaimGate();
    assertTrue(gate.tryStart());
    assertTrue(gate.tryStart());
    gate.close();
    assertFalse(gate.isOpen());
    assertFalse(gate.tryStart(), "no claim after the gate closed");
    assertEquals(2, gate.inFlight());
    gate.finished();
    gate.finished();
    assertEquals(0, gate.inFlight());
  }
}
