package ax.node;

/**
 * The start-up line that says which network transport the event loops run on. Why ax prefers the native
 * one: ARCHITECTURE.md, "Transport". Vert.x gives no cause when no native transport is on the class path at
 * all (a jar built without Netty's native artifacts, or an OS and CPU they do not cover), so that case says
 * so instead of printing "null".
 */
final class TransportLine {
  private TransportLine() {
  }

  /**
   * @param nativeEnabled what {@code Vertx.isNativeTransportEnabled()} answered
   * @param cause         {@code Vertx.unavailableNativeTransportCause()}, null when none was tried
   * @param osName        the {@code os.name} property: Linux's native transport is epoll, macOS's kqueue
   */
  static String describe(boolean nativeEnabled, Throwable cause, String osName) {
    String name = nativeName(osName);
    if (nativeEnabled) {
      return "network transport: native " + name;
    }
    String why = cause == null ? "no native transport on the class path"
        : "native " + name + " unavailable: " + cause;
    return "network transport: Java NIO (" + why + ")";
  }

  private static String nativeName(String osName) {
    String os = osName == null ? "" : osName.toLowerCase(java.util.Locale.ROOT);
    if (os.contains("mac") || os.contains("bsd")) {
      return "kqueue";
    }
    return os.contains("linux") ? "epoll" : "transport";
  }
}
