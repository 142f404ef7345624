package ax.api;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The batch body's shape, which refuses a request as a whole (its elements are judged one by one later). */
class BatchShapeTest {

  @Test
  void oneToAThousandElementsOfAnyKindPass() throws Exception {
    JsonArray mixed = new JsonArray().add(new JsonObject().put("task_type", "t")).add("not a task").addNull();
    assertEquals(3, BatchHandler.items(new JsonObject().put("tasks", mixed)).size());
    JsonArray full = new JsonArray();
    for (int i = 0; i < BatchHandler.MAX_BATCH; i++) {
      full.add(new JsonObject());
    }
    assertEquals(1000, BatchHandler.items(new JsonObject().put("tasks", full)).size());
  }

  @Test
  void aBodyThatIsNotAnObjectWithOneToAThousandTasksIsRefusedNamingWhatIsWrong() {
    JsonArray tooMany = new JsonArray();
    for (int i = 0; i <= BatchHandler.MAX_BATCH; i++) {
      tooMany.add(new JsonObject());
    }
    List<Object[]> cases = List.of(
        new Object[] {null, "body: "},
        new Object[] {new JsonObject(), "tasks: "},
        new Object[] {new JsonObject().putNull("tasks"), "tasks: "},
        new Object[] {new JsonObject().put("tasks", new JsonObject().put("a", 1)), "tasks: "},
        new Object[] {new JsonObject().put("tasks", "x"), "tasks: "},
        new Object[] {new JsonObject().put("tasks", new JsonArray()), "tasks: "},
        new Object[] {new JsonObject().put("tasks", tooMany), "tasks: "},
        new Object[] {new JsonObject().put("tasks", new JsonArray().add(1)).put("colour", "red"), "colour: "});
    for (Object[] c : cases) {
      InvalidRequest e = assertThrows(InvalidRequest.class, () -> BatchHandler.items((JsonObject) c[0]),
          String.valueOf(c[0]));
      assertEquals("validation_failed", e.problem().code());
      assertTrue(e.problem().detail().startsWith((String) c[1]), e.problem().detail());
    }
  }
}
