package ax.node;

import java.net.BindException;

/**
 * A port the node must listen on is taken. The JDK says only "Address already in use"; this says which
 * port and which variable moves it: {@code port 8080 is already in use (set AX_HTTP_PORT to a free port)}.
 */
public final class PortInUse extends RuntimeException {
  private static final String IN_USE = "Address already in use";

  PortInUse(int port, String variable, Throwable cause) {
    super("port " + port + " is already in use (set " + variable + " to a free port)", cause);
  }

  /**
   * {@code failure} explained when it, or one of its causes, says the address is in use (the JDK's
   * {@link BindException}, and Netty's native transport, which throws an IOException with the same
   * text); any other failure unchanged.
   */
  public static Throwable explain(Throwable failure, int port, String variable) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof PortInUse) {
        return failure;
      }
      if (t.getMessage() != null && t.getMessage().contains(IN_USE)) {
        return new PortInUse(port, variable, failure);
      }
    }
    return failure;
  }
}
