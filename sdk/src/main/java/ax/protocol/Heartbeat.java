package ax.protocol;

import io.vertx.core.json.JsonObject;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Body of {@link ExecutorAddresses#HEARTBEAT}, every {@code heartbeat_ms}: idle workers per pool and in
 * all, acked tasks waiting for a worker ({@code backlog}), system load per core, and counters since the
 * executor started.
 */
public record Heartbeat(String executorId, String session, Map<String, Integer> free, int freeThreads, int backlog,
                        double cpuLoad, long executed, long failed, double meanDurationMs) {
  private static final String MESSAGE = "heartbeat";

  public Heartbeat {
    free = Map.copyOf(free);
  }

  public JsonObject toJson() {
    JsonObject f = new JsonObject();
    for (String pool : PoolRule.NAMES) {
      if (free.containsKey(pool)) {
        f.put(pool, free.get(pool));
      }
    }
    return new JsonObject().put("executor_id", executorId).put("session", session).put("free", f)
        .put("free_threads", freeThreads).put("backlog", backlog).put("cpu_load", cpuLoad).put("executed", executed)
        .put("failed", failed).put("mean_duration_ms", meanDurationMs);
  }

  /** Reads a heartbeat: the counts must be non-negative integers; the load figures default to 0. */
  public static Heartbeat fromJson(Object body) {
    JsonObject o = Fields.object(body, MESSAGE);
    Map<String, Integer> free = new LinkedHashMap<>();
    if (o.getValue("free") instanceof JsonObject f) {
      for (String pool : PoolRule.NAMES) {
        if (f.getValue(pool) instanceof Number n) {
          free.put(pool, Math.max(0, n.intValue()));
        }
      }
    }
    return new Heartbeat(o.getValue("executor_id") instanceof String s ? s : null,
        o.getValue("session") instanceof String s ? s : "", free,
        Fields.intIn(o, "free_threads", 0, 0, Integer.MAX_VALUE, MESSAGE),
        Fields.intIn(o, "backlog", 0, 0, Integer.MAX_VALUE, MESSAGE),
        Fields.nonNegative(o, "cpu_load"), (long) Fields.nonNegative(o, "executed"),
        (long) Fields.nonNegative(o, "failed"), Fields.nonNegative(o, "mean_duration_ms"));
  }
}
