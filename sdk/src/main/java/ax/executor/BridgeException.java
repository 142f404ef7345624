package ax.executor;

/**
 * A request over the bridge that did not get an answer: an {@code err} frame for its reply address
 * ({@code failureCode} as sent, e.g. 410 for an unknown session), a timeout or a closed connection.
 */
final class BridgeException extends RuntimeException {
  /** Our own codes for failures that never reached the server. */
  public static final int TIMEOUT = -100;
  public static final int CLOSED = -101;

  private final int failureCode;
  private final String failureType;

  public BridgeException(int failureCode, String failureType, String message) {
    super(message);
    this.failureCode = failureCode;
    this.failureType = failureType;
  }

  public int failureCode() {
    return failureCode;
  }

  public String failureType() {
    return failureType;
  }

  public static int codeOf(Throwable t) {
    return t instanceof BridgeException b ? b.failureCode : 0;
  }
}
