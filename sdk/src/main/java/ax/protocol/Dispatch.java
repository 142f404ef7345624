package ax.protocol;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * Body of a request the leader sends to an executor's inbox: tasks to run, stamped with the leader's
 * epoch. The executor answers at once with an {@link Ack}. Executors read the tasks one by one
 * ({@link DispatchedTask#fromJson}) so that one malformed task is rejected alone.
 */
public record Dispatch(long epoch, List<DispatchedTask> tasks) {

  public JsonObject toJson() {
    JsonArray items = new JsonArray();
    for (DispatchedTask t : tasks) {
      items.add(t.toJson());
    }
    return new JsonObject().put("epoch", epoch).put("tasks", items);
  }

  /** The dispatch's epoch, or null when it carries none. */
  public static Long epochOf(JsonObject dispatch) {
    return dispatch.getValue("epoch") instanceof Number n ? n.longValue() : null;
  }

  /** The raw task elements, to be read one by one. */
  public static JsonArray rawTasks(JsonObject dispatch) {
    return dispatch.getValue("tasks") instanceof JsonArray a ? a : new JsonArray();
  }
}
