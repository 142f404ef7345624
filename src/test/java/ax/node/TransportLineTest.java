package ax.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TransportLineTest {

  @Test
  void nativeEpollOnLinux() {
    assertEquals("network transport: native epoll", TransportLine.describe(true, null, "Linux"));
  }

  @Test
  void nativeKqueueOnMacOs() {
    assertEquals("network transport: native kqueue", TransportLine.describe(true, null, "Mac OS X"));
  }

  @Test
  void noNativeTransportOnTheClassPathSaysSoInsteadOfNull() {
    assertEquals("network transport: Java NIO (no native transport on the class path)",
        TransportLine.describe(false, null, "Linux"));
  }

  @Test
  void aNativeTransportThatFailedToLoadGivesItsCause() {
    assertEquals("network transport: Java NIO (native epoll unavailable: java.lang.UnsatisfiedLinkError: librt)",
        TransportLine.describe(false, new UnsatisfiedLinkError("librt"), "Linux"));
  }

  @Test
  void anUnknownSystemNamesNoParticularTransport() {
    assertEquals("network transport: Java NIO (native transport unavailable: java.io.IOException: x)",
        TransportLine.describe(false, new java.io.IOException("x"), "Windows 11"));
  }
}
