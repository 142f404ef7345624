package ax.spring;

import ax.executor.ExecutorListener;
import ax.executor.ServerAddress;

import java.time.Clock;
import java.time.Instant;

/**
 * What the executor last heard about its connection, for the health indicator: the SDK reports
 * connection events to one {@link ExecutorListener}, so this one remembers the last event and passes
 * every event on to the application's listener (by default the SDK's, which logs).
 */
public final class ExecutorConnection implements ExecutorListener {

  /** Where the connection stands. */
  public enum State { CONNECTING, REGISTERED, DISCONNECTED }

  /**
   * @param server  the node of the last event (null before the first)
   * @param session the registered session (null unless REGISTERED)
   * @param error   why the connection was lost (null unless DISCONNECTED)
   */
  public record Snapshot(State state, ServerAddress server, String session, String error, Instant since) {
  }

  private final ExecutorListener next;
  private final Clock clock;
  private volatile Snapshot last;

  ExecutorConnection(ExecutorListener next, Clock clock) {
    this.next = next;
    this.clock = clock;
    this.last = new Snapshot(State.CONNECTING, null, null, null, clock.instant());
  }

  public Snapshot snapshot() {
    return last;
  }

  /** Called when a new executor starts connecting (after a restart of the context, too). */
  void connecting() {
    last = new Snapshot(State.CONNECTING, null, null, null, clock.instant());
  }

  @Override
  public void registered(String executorId, ServerAddress server, String session) {
    last = new Snapshot(State.REGISTERED, server, session, null, clock.instant());
    next.registered(executorId, server, session);
  }

  @Override
  public void disconnected(ServerAddress server, Throwable cause) {
    last = new Snapshot(State.DISCONNECTED, server, null, String.valueOf(cause.getMessage()), clock.instant());
    next.disconnected(server, cause);
  }

  @Override
  public void reconnecting(ServerAddress server, long delayMs) {
    next.reconnecting(server, delayMs); // still DISCONNECTED until the next registration
  }
}
