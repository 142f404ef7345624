package ax.api;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TaskIdsTest {

  @Test
  void aDecimalStringOfOneToNineteenDigitsIsAnId() throws Exception {
    assertEquals(OptionalLong.of(7393824110912345678L), TaskIds.parse("7393824110912345678"));
    assertEquals(OptionalLong.of(0), TaskIds.parse("0"));
    assertEquals(OptionalLong.of(7), TaskIds.parse("007"));
  }

  @Test
  void aWellFormedIdAboveTheLargestLongNamesNoTask() throws Exception {
    assertTrue(TaskIds.parse("9999999999999999999").isEmpty());
  }

  @Test
  void anythingElseIsAValidationFailureNamingTaskId() {
    for (String bad : List.of("abc", "-5", "+5", "12ab", " 1", "1".repeat(20), "1".repeat(30), "")) {
      InvalidRequest e = assertThrows(InvalidRequest.class, () -> TaskIds.parse(bad), bad);
      assertEquals(400, e.problem().status());
      assertEquals("validation_failed", e.problem().code());
      assertTrue(e.problem().detail().startsWith("task_id: "));
    }
  }
}
