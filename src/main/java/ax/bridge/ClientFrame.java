package ax.bridge;

import java.util.Map;

/**
 * One frame an executor sent, with its shape checked ({@link ClientFrames}) but not yet its permission
 * ({@link BridgeSession}). {@code body} is a JSON value (a Vert.x JSON type, or null) the session passes
 * on without looking into; {@code failureCode}/{@code failureMessage} are only read on a reply to a
 * request the server sent.
 */
public record ClientFrame(Type type, String address, String replyAddress, Map<String, String> headers, Object body,
                          Integer failureCode, String failureMessage) {

  /** The frame types of the Vert.x TCP event-bus bridge protocol. */
  public enum Type {
    PING("ping"), REGISTER("register"), UNREGISTER("unregister"), SEND("send"), PUBLISH("publish");

    final String wire;

    Type(String wire) {
      this.wire = wire;
    }

    static Type of(String wire) {
      for (Type t : values()) {
        if (t.wire.equals(wire)) {
          return t;
        }
      }
      return null;
    }
  }

  public ClientFrame {
    headers = Map.copyOf(headers);
  }

  public static ClientFrame ping() {
    return new ClientFrame(Type.PING, null, null, Map.of(), null, null, null);
  }
}
