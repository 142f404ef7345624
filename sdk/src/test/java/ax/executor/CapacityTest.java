package ax.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Pool choice, pool sizes and the shared admission limit. */
class CapacityTest {

  @Test
  void aHandlersOwnPoolWinsOverTheDispatch() {
    assertEquals(Pool.SLOW, Pool.route(Pool.SLOW, "high", 9, 1_000));
  }

  @Test
  void otherwiseTheDispatchPoolIsUsed() {
    assertEquals(Pool.HIGH, Pool.route(null, "high", 0, 1_000));
    assertEquals(Pool.DEFAULT, Pool.route(null, "DEFAULT", 9, 120_000));
  }

  @Test
  void withoutAPoolTheProtocolRuleApplies() {
    assertEquals(Pool.HIGH, Pool.route(null, null, 7, 120_000));
    assertEquals(Pool.SLOW, Pool.route(null, null, 6, 60_001));
    assertEquals(Pool.DEFAULT, Pool.route(null, "bogus", 6, 60_000));
  }

  @Test
  void poolWireNamesReadBack() {
    for (Pool p : Pool.values()) {
      assertEquals(p, Pool.fromWire(p.wireName()));
    }
    assertNull(Pool.fromWire("fast"));
  }

  @Test
  void poolSpecsOverrideOnlyThePoolsNamed() {
    assertEquals(new PoolSizes(2, 16, 3), PoolSizes.parse("high=2, slow=3"));
    assertEquals(21, PoolSizes.parse("high=2,slow=3").total());
    assertEquals(java.util.Map.of("high", 8, "default", 16, "slow", 8), PoolSizes.DEFAULTS.byWireName());
  }

  @Test
  void badPoolSpecsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> PoolSizes.parse("fast=2"));
    assertThrows(IllegalArgumentException.class, () -> PoolSizes.parse("high=x"));
    assertThrows(IllegalArgumentException.class, () -> PoolSizes.parse("high=0"));
    assertThrows(IllegalArgumentException.class, () -> PoolSizes.parse(" "));
  }

  @Test
  void admissionAllowsThreadsPlusBufferThenRefuses() {
    Admission admission = new Admission(3, 2);
    for (int i = 0; i < 5; i++) {
      assertTrue(admission.tryAcquire(), "permit " + i);
    }
    assertFalse(admission.tryAcquire());
    assertEquals(5, admission.inflight());

    admission.release();

    assertTrue(admission.tryAcquire());
    assertFalse(admission.tryAcquire());
  }

  @Test
  void releasingMoreThanAcquiredIsABug() {
    Admission admission = new Admission(1, 0);
    assertThrows(IllegalStateException.class, admission::release);
    assertEquals(0, admission.inflight());
  }

  @Test
  void theEpochFenceRefusesOnlyLowerEpochs() {
    EpochFence fence = new EpochFence();
    assertTrue(fence.admit(7));
    assertTrue(fence.admit(7));
    assertTrue(fence.admit(8));
    assertFalse(fence.admit(7));
    fence.observe(10);
    assertFalse(fence.admit(9));
    assertEquals(10, fence.highest());
  }
}
