package ax.executor;

import java.util.logging.Logger;

/**
 * Connection life-cycle events, for logs and for tools that wait for registration. Called on the
 * executor's event loop: return quickly. The defaults log through java.util.logging.
 */
public interface ExecutorListener {
  Logger LOG = Logger.getLogger(ExecutorListener.class.getName());

  /** A session was registered (first time or after a reconnect / an expired session). */
  default void registered(String executorId, ServerAddress server, String session) {
    LOG.info(() -> "executor " + executorId + " registered with " + server + " session " + session);
  }

  /** A connection attempt failed or an established connection dropped. */
  default void disconnected(ServerAddress server, Throwable cause) {
    LOG.warning(() -> "lost connection to " + server + ": " + cause.getMessage());
  }

  /** The next connection attempt is scheduled. */
  default void reconnecting(ServerAddress server, long delayMs) {
    LOG.info(() -> "reconnecting to " + server + " in " + delayMs + " ms");
  }
}
