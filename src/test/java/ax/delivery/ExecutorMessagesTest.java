package ax.delivery;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ExecutorMessagesTest {
  @Test
  void registrationIsValidated() {
    var r = ExecutorMessages.registration("ex-1", new JsonObject().put("processors", new JsonArray().add("echo"))
        .put("capacity", new JsonObject().put("high", 2).put("default", 4)).put("buffer", 10).put("zone", "z1"));
    assertEquals(Set.of("echo"), r.processors());
    assertEquals(10, r.buffer());
    assertThrows(IllegalArgumentException.class, () -> ExecutorMessages.registration("ex-1", new JsonObject()));
    assertThrows(IllegalArgumentException.class, () -> ExecutorMessages.registration("ex-1",
        new JsonObject().put("processors", new JsonArray().add("echo")).put("capacity", new JsonObject().put("turbo", 3))));
    assertThrows(IllegalArgumentException.class, () -> ExecutorMessages.registration("ex-1",
        new JsonObject().put("processors", new JsonArray().add("bad name"))));
  }

  @Test
  void resultsKeepTheGoodItemsAndNameTheMalformedOnes() {
    JsonObject body = new JsonObject().put("results", new JsonArray()
        .add(new JsonObject().put("task_id", "7421394872192303104").put("attempt", 1).put("status", "SUCCESS")
            .put("result", new JsonObject().put("x", 1)))
        .add(new JsonObject().put("task_id", "12").put("attempt", 2).put("status", "FAILED").put("error", "boom"))
        .add(new JsonObject().put("task_id", "13").put("attempt", 0).put("status", "SUCCESS"))
        .add(new JsonObject().put("task_id", "14").put("attempt", 1).put("status", "MAYBE")));
    ExecutorMessages.Results r = ExecutorMessages.results(body);
    assertEquals(2, r.results().size());
    assertEquals(7421394872192303104L, r.results().get(0).taskId(), "ids beyond 2^53 survive as strings");
    assertTrue(r.results().get(0).success());
    assertEquals("{\"x\":1}", r.results().get(0).resultJson());
    assertFalse(r.results().get(1).success());
    assertEquals("boom", r.results().get(1).error());
    assertEquals(List.of("13", "14"), r.malformed());
  }

  @Test
  void dispatchCarriesIdsAsStringsAndAPoolHint() {
    ReadyTask hi = new ReadyTask(7421394872192303104L, "t", "echo", 8, 1, 1_000, "{\"a\":1}", 0, 2, 1, 0);
    ReadyTask slow = new ReadyTask(2, "t", "echo", 5, 1, 120_000, null, 0, 2, 1, 0);
    JsonObject d = ExecutorMessages.dispatch(9, List.of(hi, slow), List.of(1, 3));
    assertEquals(9, d.getLong("epoch"));
    JsonObject first = d.getJsonArray("tasks").getJsonObject(0);
    assertEquals("7421394872192303104", first.getString("task_id"));
    assertEquals("high", first.getString("pool"));
    assertEquals(1, first.getJsonObject("payload").getInteger("a"));
    assertEquals("slow", d.getJsonArray("tasks").getJsonObject(1).getString("pool"));
    assertEquals(3, d.getJsonArray("tasks").getJsonObject(1).getInteger("attempt"));
  }

  @Test
  void anAckNamesTheAcceptedIds() {
    var ack = ExecutorMessages.ack(new JsonObject().put("accepted", new JsonArray().add("5").add("6"))
        .put("rejected", new JsonArray().add("7")));
    assertEquals(Set.of(5L, 6L), ack.accepted());
    assertThrows(IllegalArgumentException.class, () -> ExecutorMessages.ack("nope"));
  }
}
