package ax.protocol;

import io.vertx.core.json.JsonObject;

/**
 * Body of {@link ExecutorAddresses#DRAIN}: first without {@code done} (no new work, the session keeps
 * reporting), then with {@code done} once everything is reported (the session leaves without its tasks
 * being treated as lost). Answered with the session's new status, {@link #DRAINING} or {@link #GONE}.
 */
public record Drain(String executorId, String session, boolean done) {
  public static final String DRAINING = "DRAINING";
  public static final String GONE = "GONE";

  public JsonObject toJson() {
    JsonObject o = new JsonObject().put("executor_id", executorId).put("session", session);
    return done ? o.put("done", true) : o;
  }

  public static Drain fromJson(Object body) {
    JsonObject o = Fields.object(body, "drain");
    return new Drain(o.getValue("executor_id") instanceof String s ? s : null,
        o.getValue("session") instanceof String s ? s : "", Boolean.TRUE.equals(o.getValue("done")));
  }

  public static JsonObject reply(String status) {
    return new JsonObject().put("status", status);
  }
}
