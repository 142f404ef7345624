package ax.bridge;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UnauthenticatedBudgetTest {
  @Test
  void admitsUpToTheConnectionCapAndAgainOnceOneLeaves() {
    UnauthenticatedBudget b = new UnauthenticatedBudget(2, 1_000);

    assertTrue(b.admit());
    assertTrue(b.admit());
    assertFalse(b.admit());
    assertEquals(2, b.connections());
    b.leave(0);
    assertTrue(b.admit());
  }

  @Test
  void bytesHeldByAllConnectionsTogetherAreBounded() {
    UnauthenticatedBudget b = new UnauthenticatedBudget(10, 1_000);
    b.admit();
    b.admit();

    assertTrue(b.hold(0, 600));
    assertFalse(b.hold(0, 500), "the second connection would take the node over");
    b.leave(500); // that one is closed
    assertEquals(600, b.bytes());
    assertTrue(b.hold(600, 100), "the first shrinks as its frame completes");
    assertEquals(100, b.bytes());
    b.leave(100);
    assertEquals(0, b.bytes());
    assertEquals(0, b.connections());
  }
}
