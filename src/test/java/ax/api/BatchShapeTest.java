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

  /** Issue 10, finding 3: one element PostgreSQL cannot store turned every element into a 500. */
  @Test
  void aCharacterThatCannotBeStoredOrAKeyTwiceRefusesOnlyItsElement() throws Exception {
    String body = "{\"tasks\":[{\"task_type\":\"a\"},{\"task_type\":\"b\",\"payload\":{\"k\":\"x\\u0000\"}},"
        + "{\"task_type\":\"c\",\"biz_key\":\"\\ud800\"},{\"task_type\":\"d\",\"task_type\":\"e\"}]}";
    HttpJson.Checked checked = HttpJson.decodeWithFlaws(io.vertx.core.buffer.Buffer.buffer(body));
    assertEquals(4, BatchHandler.items(checked.body()).size());
    java.util.Map<Integer, InvalidRequest> flawed = BatchHandler.flawedItems(checked.flaws());
    assertEquals(java.util.Set.of(1, 2, 3), flawed.keySet());
    assertTrue(flawed.get(1).problem().detail().startsWith("tasks.1.payload.k: "), flawed.get(1).problem().detail());
    assertTrue(flawed.get(2).problem().detail().startsWith("tasks.2.biz_key: "), flawed.get(2).problem().detail());
    assertTrue(flawed.get(3).problem().detail().contains("twice"), flawed.get(3).problem().detail());
  }

  @Test
  void aFlawOutsideTheElementsRefusesTheWholeBatch() throws Exception {
    HttpJson.Checked checked = HttpJson.decodeWithFlaws(io.vertx.core.buffer.Buffer.buffer(
        "{\"tasks\":[{\"task_type\":\"a\"}],\"tasks\":[{\"task_type\":\"b\"}]}"));
    InvalidRequest e = assertThrows(InvalidRequest.class, () -> BatchHandler.flawedItems(checked.flaws()));
    assertTrue(e.problem().detail().startsWith("tasks: "), e.problem().detail());
  }
}
