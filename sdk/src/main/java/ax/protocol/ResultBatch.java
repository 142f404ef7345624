package ax.protocol;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;

/**
 * Body of {@link ExecutorAddresses#RESULT}: outcomes of one session. The leader answers with a
 * {@link ResultReply}; the executor keeps every outcome until it is named in one.
 */
public record ResultBatch(String executorId, String session, List<TaskOutcome> results) {
  public static final int MAX_ITEMS = 10_000;

  /** What a received batch held: the readable outcomes, and the ids of items too malformed to apply. */
  public record Received(String session, List<TaskOutcome> results, List<String> malformed) {
  }

  /** Builds the body from outcomes already in their JSON form (the SDK keeps them that way). */
  public static JsonObject toJson(String executorId, String session, JsonArray results) {
    return new JsonObject().put("executor_id", executorId).put("session", session).put("results", results);
  }

  public JsonObject toJson() {
    JsonArray items = new JsonArray();
    results.forEach(r -> items.add(r.toJson()));
    return toJson(executorId, session, items);
  }

  /** Reads a batch; a malformed item is refused by its id ("?" when it has none), the others still apply. */
  public static Received fromJson(Object body) {
    JsonObject o = Fields.object(body, "result");
    JsonArray items = o.getValue("results") instanceof JsonArray a ? a : null;
    if (items == null || items.size() > MAX_ITEMS) {
      throw new ProtocolException("result: results must be an array of at most " + MAX_ITEMS + " items");
    }
    List<TaskOutcome> out = new ArrayList<>(items.size());
    List<String> malformed = new ArrayList<>();
    for (Object item : items) {
      if (!(item instanceof JsonObject r)) {
        malformed.add("?");
        continue;
      }
      try {
        out.add(TaskOutcome.fromJson(r));
      } catch (ProtocolException e) {
        String id = Fields.idOf(r.getValue("task_id"));
        malformed.add(id == null ? "?" : id);
      }
    }
    return new Received(o.getValue("session") instanceof String s ? s : "", out, malformed);
  }
}
