package ax.wheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ScheduledTaskTest {

  @Test
  void priorityFromZeroToNineIsAccepted() {
    assertEquals(0, new ScheduledTask(1, 0, 0).priority());
    assertEquals(9, new ScheduledTask(1, 0, 9).priority());
  }

  @Test
  void priorityOutsideZeroToNineIsRejectedNamingTheTask() {
    IllegalArgumentException tooHigh =
        assertThrows(IllegalArgumentException.class, () -> new ScheduledTask(77, 0, 10));
    assertTrue(tooHigh.getMessage().contains("77"));
    assertThrows(IllegalArgumentException.class, () -> new ScheduledTask(1, 0, -1));
  }
}
