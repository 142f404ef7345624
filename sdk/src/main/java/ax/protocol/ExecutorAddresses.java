package ax.protocol;

import java.util.List;

/**
 * Event-bus addresses and frame headers of the executor protocol. The scheduler registers its
 * consumers on these, its bridge permits exactly these, and executors send to them.
 */
public final class ExecutorAddresses {
  private ExecutorAddresses() {
  }

  /** Request (executor → leader): start a session. The first frame of a connection; it carries the token. */
  public static final String REGISTER = "ax.exec.register";

  /** Request (executor → leader): the periodic load report. */
  public static final String HEARTBEAT = "ax.exec.heartbeat";

  /** Request (executor → leader): a batch of task outcomes. */
  public static final String RESULT = "ax.exec.result";

  /** Request (executor → leader): stop sending work; later, "done". */
  public static final String DRAIN = "ax.exec.drain";

  /** Prefix of each executor's inbox, where the leader sends dispatch requests. */
  public static final String INBOX_PREFIX = "ax.exec.inbox.";

  /** Every address an executor may send to. */
  public static final List<String> INBOUND = List.of(REGISTER, HEARTBEAT, RESULT, DRAIN);

  /** Header of the register frame that carries the executor's JWT. */
  public static final String TOKEN_HEADER = "token";

  /** Header the bridge stamps on every frame of an authenticated connection: the token's subject. */
  public static final String EXECUTOR_HEADER = "executor_id";

  public static String inbox(String executorId) {
    return INBOX_PREFIX + executorId;
  }
}
