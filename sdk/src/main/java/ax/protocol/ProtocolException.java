package ax.protocol;

/** A message that breaks the executor protocol; the text names the message and the field. */
public final class ProtocolException extends IllegalArgumentException {
  public ProtocolException(String message) {
    super(message);
  }
}
