package ax.api;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bytes of bodies a node holds: bounded in all, and a quarter of that per access key. */
class BodyBudgetTest {

  @Test
  void oneKeyMayHoldAQuarterAndAllKeysTogetherTheWhole() {
    BodyBudget budget = new BodyBudget(400);
    assertTrue(budget.tryReserve("k1", 60));
    assertTrue(budget.tryReserve("k1", 40));
    assertFalse(budget.tryReserve("k1", 1), "k1 holds its quarter");
    assertTrue(budget.tryReserve("k2", 100));
    assertTrue(budget.tryReserve("k3", 100));
    assertTrue(budget.tryReserve("k4", 100));
    assertFalse(budget.tryReserve("k5", 1), "the whole is held");
    assertEquals(400, budget.used());

    budget.release("k1", 40);
    assertTrue(budget.tryReserve("k5", 40));
    assertFalse(budget.tryReserve("k1", 1), "what k1 gave back went to k5");
    budget.release("k2", 100);
    assertTrue(budget.tryReserve("k1", 40));
    assertEquals(340, budget.used());
    assertFalse(budget.tryReserve("k1", 1), "the whole has room, k1's share has not");
  }

  @Test
  void aRefusalByTheWholeLeavesTheKeysShareUntouched() {
    BodyBudget budget = new BodyBudget(8);
    assertTrue(budget.tryReserve("a", 2));
    assertTrue(budget.tryReserve("b", 2));
    assertTrue(budget.tryReserve("c", 2));
    assertTrue(budget.tryReserve("d", 2));
    assertFalse(budget.tryReserve("e", 2));
    budget.release("a", 2);
    assertTrue(budget.tryReserve("e", 2), "e's failed attempt took nothing from its share");
  }
}
