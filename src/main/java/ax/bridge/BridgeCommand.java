package ax.bridge;

import java.util.Map;

/**
 * What a {@link BridgeSession} decided, for {@code BridgeConnection} to carry out on the socket and the
 * event bus. {@code reason} tags the refusal counter ({@code ax_bridge_refused_total}).
 */
public sealed interface BridgeCommand {

  /** Answer a ping. */
  record Pong() implements BridgeCommand {
  }

  /** Send {@code {"type":"err","message":message}}; the connection stays usable. */
  record Error(String message, String reason) implements BridgeCommand {
  }

  /** Send {@code {"type":"err","message":message}}, then close the connection. */
  record Close(String message, String reason) implements BridgeCommand {
  }

  /** Verify an executor token; answer with {@link BridgeSession#onTokenChecked}. */
  record CheckToken(String token) implements BridgeCommand {
  }

  /** The connection now belongs to {@code executorId}: lift the pre-authentication limits. */
  record Authenticated(String executorId) implements BridgeCommand {
  }

  /** An event-bus request whose answer goes back as a frame addressed to {@code replyAddress}. */
  record Request(String address, String replyAddress, Map<String, String> headers, Object body)
      implements BridgeCommand {
  }

  /** A one-way event-bus send. */
  record Send(String address, Map<String, String> headers, Object body) implements BridgeCommand {
  }

  /** An event-bus publish. */
  record Publish(String address, Map<String, String> headers, Object body) implements BridgeCommand {
  }

  /** Answer the server's request that is waiting at {@code address}. */
  record Reply(String address, Map<String, String> headers, Object body) implements BridgeCommand {
  }

  /** Fail the server's request that is waiting at {@code address}. */
  record FailReply(String address, int code, String message) implements BridgeCommand {
  }

  /** Start delivering {@code address}'s messages to this connection. */
  record Subscribe(String address) implements BridgeCommand {
  }

  /** Stop delivering {@code address}'s messages to this connection. */
  record Unsubscribe(String address) implements BridgeCommand {
  }
}
