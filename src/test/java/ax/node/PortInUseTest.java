package ax.node;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PortInUseTest {

  /** What the JDK throws when a second socket binds a port that is listening. */
  private static BindException realBindFailure(int port) throws IOException {
    try (ServerSocket second = new ServerSocket()) {
      return assertThrows(BindException.class, () -> second.bind(new InetSocketAddress(port)));
    }
  }

  @Test
  void aBusyPortIsNamedWithTheVariableThatMovesIt() throws IOException {
    try (ServerSocket taken = new ServerSocket(0)) {
      BindException jdk = realBindFailure(taken.getLocalPort());

      Throwable explained = PortInUse.explain(jdk, taken.getLocalPort(), "AX_HTTP_PORT");

      assertEquals("port " + taken.getLocalPort() + " is already in use (set AX_HTTP_PORT to a free port)",
          explained.getMessage());
      assertSame(jdk, explained.getCause());
    }
  }

  @Test
  void theBindFailureIsFoundUnderTheLibrariesWrappers() throws IOException {
    try (ServerSocket taken = new ServerSocket(0)) {
      RuntimeException hazelcast = new IllegalStateException("Hazelcast cannot start. Port ["
          + taken.getLocalPort() + "] is already in use", realBindFailure(taken.getLocalPort()));

      assertEquals("port 5701 is already in use (set AX_CLUSTER_PORT to a free port)",
          PortInUse.explain(new RuntimeException(hazelcast), 5701, "AX_CLUSTER_PORT").getMessage());
    }
  }

  @Test
  void otherFailuresAndOnesAlreadyExplainedAreLeftAlone() {
    IOException refused = new IOException("Connection refused");
    assertSame(refused, PortInUse.explain(refused, 8080, "AX_HTTP_PORT"));

    BindException permission = new BindException("Permission denied");
    assertSame(permission, PortInUse.explain(permission, 80, "AX_HTTP_PORT"));

    Throwable once = PortInUse.explain(new BindException("Address already in use"), 7000, "AX_BRIDGE_PORT");
    assertSame(once, PortInUse.explain(once, 8080, "AX_HTTP_PORT"));
  }
}
