package ax.bus;

import ax.alert.NodeFigures;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.HashMap;
import java.util.Map;

/** {@link NodeFigures} as the JSON a node sends the leader on {@link Addresses#ALERT_FIGURES}. */
public final class FiguresMessage {
  private FiguresMessage() {
  }

  public static JsonObject encode(NodeFigures f) {
    JsonArray buckets = new JsonArray();
    for (long b : f.delayBuckets()) {
      buckets.add(b);
    }
    return new JsonObject().put("node", f.nodeId()).put("success", f.success()).put("failure", f.failure())
        .put("timeout", f.timeout()).put("failed_twice", new JsonObject(new HashMap<>(f.failedTwice())))
        .put("executors_offline", f.executorsOffline()).put("delay_buckets", buckets)
        .put("clock_offset_ms", f.clockOffsetMs()).put("webhook_backlog", f.webhookBacklog());
  }

  /** Refuses (IllegalArgumentException) what is not a figures message. */
  public static NodeFigures decode(JsonObject j) {
    try {
      Map<String, Long> twice = new HashMap<>();
      j.getJsonObject("failed_twice").forEach(e -> twice.put(e.getKey(), ((Number) e.getValue()).longValue()));
      JsonArray b = j.getJsonArray("delay_buckets");
      long[] buckets = new long[b.size()];
      for (int i = 0; i < buckets.length; i++) {
        buckets[i] = b.getLong(i);
      }
      return new NodeFigures(j.getString("node"), j.getLong("success"), j.getLong("failure"), j.getLong("timeout"),
          twice, j.getLong("executors_offline"), buckets, j.getDouble("clock_offset_ms"), j.getLong("webhook_backlog"));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not a figures message: " + e.getMessage(), e);
    }
  }
}
