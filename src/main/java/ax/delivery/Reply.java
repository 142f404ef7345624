package ax.delivery;

import java.util.List;

/** The answer to one executor request, which the runner turns into a protocol message. */
public sealed interface Reply {

  /** A new session. */
  record Registered(String executorId, String session, long heartbeatMs, long ackTimeoutMs, long epoch)
      implements Reply {
  }

  /** A heartbeat was accepted; {@code state} is the session's health. */
  record Alive(String state, long epoch) implements Reply {
  }

  /** A drain was accepted: {@code DRAINING}, or {@code GONE} once the executor said it is done. */
  record DrainState(String status) implements Reply {
  }

  /** Which results were recorded and which are refused for good (both mean: do not send again). */
  record ResultsRecorded(List<String> applied, List<String> refused) implements Reply {
  }

  /** The request failed: {@code code} 400 malformed, 403 not yours, 410 unknown session, 503 retry later. */
  record Refused(int code, String message) implements Reply {
  }
}
