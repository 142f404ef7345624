package ax.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class ServerAddressTest {

  @Test
  void aListOfHostPortPairsIsParsedInOrder() {
    assertEquals(List.of(new ServerAddress("127.0.0.1", 7000), new ServerAddress("node-2", 7001),
            new ServerAddress("::1", 7002)),
        ServerAddress.parseList("127.0.0.1:7000, node-2:7001,[::1]:7002"));
  }

  @Test
  void addressesPrintAsTheyAreWritten() {
    assertEquals("127.0.0.1:7000", new ServerAddress("127.0.0.1", 7000).toString());
    assertEquals("[::1]:7000", new ServerAddress("::1", 7000).toString());
  }

  @Test
  void badAddressesAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> ServerAddress.parse("localhost"));
    assertThrows(IllegalArgumentException.class, () -> ServerAddress.parse("localhost:"));
    assertThrows(IllegalArgumentException.class, () -> ServerAddress.parse("localhost:x"));
    assertThrows(IllegalArgumentException.class, () -> ServerAddress.parse("localhost:70000"));
    assertThrows(IllegalArgumentException.class, () -> ServerAddress.parseList(" , "));
  }
}
