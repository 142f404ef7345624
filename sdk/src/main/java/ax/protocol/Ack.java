package ax.protocol;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * An executor's answer to a {@link Dispatch}: the task ids it took into its buffer and those it refused
 * (full, draining, or a stale epoch, then {@code reason} is {@link #STALE_EPOCH}). Ids in neither list
 * count as refused.
 */
public record Ack(List<String> accepted, List<String> rejected, String reason) {
  public static final String STALE_EPOCH = "stale_epoch";

  public Ack {
    accepted = List.copyOf(accepted);
    rejected = List.copyOf(rejected);
  }

  public JsonObject toJson() {
    JsonObject o = new JsonObject().put("accepted", new JsonArray(accepted)).put("rejected", new JsonArray(rejected));
    return reason == null ? o : o.put("reason", reason);
  }

  public static Ack fromJson(Object body) {
    JsonObject o = Fields.object(body, "ack");
    if (o.getValue("accepted") != null && !(o.getValue("accepted") instanceof JsonArray)) {
      throw new ProtocolException("ack: accepted must be an array of task ids");
    }
    return new Ack(Fields.ids(o.getJsonArray("accepted")),
        Fields.ids(o.getValue("rejected") instanceof JsonArray a ? a : null),
        o.getValue("reason") instanceof String s ? s : null);
  }
}
