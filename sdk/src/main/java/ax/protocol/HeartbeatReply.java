package ax.protocol;

import io.vertx.core.json.JsonObject;

/**
 * The leader's answer to a {@link Heartbeat}: the session's state and the leader's epoch. A session the
 * leader does not know (declared OFFLINE, or a new leader) is answered with failure code
 * {@link #UNKNOWN_SESSION} instead: register again.
 */
public record HeartbeatReply(String status, long epoch) {
  /** Failure code of a heartbeat, result or drain from a session the leader does not know. */
  public static final int UNKNOWN_SESSION = 410;

  public JsonObject toJson() {
    return new JsonObject().put("status", status).put("epoch", epoch);
  }

  public static HeartbeatReply fromJson(JsonObject o) {
    return new HeartbeatReply(o.getValue("status") instanceof String s ? s : "", Fields.longOr(o, "epoch",
        Long.MIN_VALUE));
  }
}
