package ax.protocol;

import io.vertx.core.json.JsonObject;

/**
 * The leader's answer to {@link Registration}: the new session, the inbox to subscribe to, the heartbeat
 * interval, how long the leader waits for an ack, and its epoch (executors refuse dispatches of lower
 * epochs).
 */
public record RegisterReply(String executorId, String session, String inbox, long heartbeatMs, long ackTimeoutMs,
                            long epoch) {
  public static final long DEFAULT_HEARTBEAT_MS = 5_000;

  public JsonObject toJson() {
    return new JsonObject().put("executor_id", executorId).put("session", session).put("inbox", inbox)
        .put("heartbeat_ms", heartbeatMs).put("ack_timeout_ms", ackTimeoutMs).put("epoch", epoch);
  }

  /** Reads an answer; {@code session} is required, the rest falls back to the protocol's defaults. */
  public static RegisterReply fromJson(JsonObject o, String executorId) {
    String session = o.getValue("session") instanceof String s && !s.isEmpty() ? s : null;
    if (session == null) {
      throw new ProtocolException("register answer: no session");
    }
    String inbox = o.getValue("inbox") instanceof String s ? s : ExecutorAddresses.inbox(executorId);
    return new RegisterReply(executorId, session, inbox,
        Math.max(10, Fields.longOr(o, "heartbeat_ms", DEFAULT_HEARTBEAT_MS)), Fields.longOr(o, "ack_timeout_ms", 0),
        Fields.longOr(o, "epoch", Long.MIN_VALUE));
  }
}
