package ax.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class BurstYieldTest {

  @Test
  void waitsOnlyWhileTheDispatchersHoldABurst() {
    BurstYield yield = new BurstYield(1_000, 5_000);
    assertFalse(yield.shouldWait(999, 0), "below the threshold: deliver");
    assertTrue(yield.shouldWait(1_000, 10));
    assertTrue(yield.shouldWait(20_000, 2_000));
    assertFalse(yield.shouldWait(3, 2_200), "the burst is drained: deliver at once");
  }

  @Test
  void aSustainedLoadDelaysItOnceByTheBoundAndNeverStarvesIt() {
    BurstYield yield = new BurstYield(1_000, 5_000);
    assertTrue(yield.shouldWait(5_000, 100));
    assertTrue(yield.shouldWait(5_000, 5_099));
    for (long now = 5_100; now < 60_000; now += 200) {
      assertFalse(yield.shouldWait(5_000, now), "the spell has waited its 5 s: deliver at " + now);
    }
  }

  @Test
  void eachBusySpellGetsItsOwnBound() {
    BurstYield yield = new BurstYield(1_000, 5_000);
    assertTrue(yield.shouldWait(2_000, 0));
    assertFalse(yield.shouldWait(2_000, 6_000));
    assertFalse(yield.shouldWait(10, 6_200), "spell over");
    assertTrue(yield.shouldWait(2_000, 7_000), "the next burst is a new spell");
    assertTrue(yield.shouldWait(2_000, 11_999));
    assertFalse(yield.shouldWait(2_000, 12_000));
  }

  @Test
  void zeroNeverWaits() {
    BurstYield yield = new BurstYield(1, 0);
    assertEquals(List.of(false, false), List.of(yield.shouldWait(1_000_000, 0), yield.shouldWait(1_000_000, 1)));
  }

  @Test
  void refusesANonsenseSetting() {
    assertThrows(IllegalArgumentException.class, () -> new BurstYield(0, 1));
    assertThrows(IllegalArgumentException.class, () -> new BurstYield(1, -1));
  }
}
