package ax.protocol;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * The leader's answer to a {@link ResultBatch}: ids whose outcome was recorded, and ids refused for good
 * (a stale attempt, another executor's task, a malformed item). Both mean "do not send again".
 */
public record ResultReply(List<String> applied, List<String> refused) {
  public ResultReply {
    applied = List.copyOf(applied);
    refused = List.copyOf(refused);
  }

  public JsonObject toJson() {
    return new JsonObject().put("applied", new JsonArray(applied)).put("refused", new JsonArray(refused));
  }

  public static ResultReply fromJson(JsonObject o) {
    return new ResultReply(Fields.ids(o.getValue("applied") instanceof JsonArray a ? a : null),
        Fields.ids(o.getValue("refused") instanceof JsonArray a ? a : null));
  }
}
