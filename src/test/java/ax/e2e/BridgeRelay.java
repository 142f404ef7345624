package ax.e2e;

import io.vertx.core.Vertx;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;

import java.util.function.BiConsumer;

/** A loopback server that connects each executor to a node's bridge and lets a test wire the two sockets. */
final class BridgeRelay {
  private BridgeRelay() {
  }

  /**
   * Listens on a free port; for each executor that connects, opens a connection to the bridge and hands
   * both sockets to {@code wire} (which sets their handlers) before reading from the executor. Either side
   * closing closes the other, unless {@code wire} says otherwise.
   */
  static NetServer listen(Vertx vertx, int bridgePort, BiConsumer<NetSocket, NetSocket> wire) {
    var client = vertx.createNetClient();
    return vertx.createNetServer().connectHandler(executor -> {
      executor.pause();
      client.connect(bridgePort, "127.0.0.1").onComplete(ar -> {
        if (ar.failed()) {
          executor.close();
          return;
        }
        NetSocket node = ar.result();
        executor.closeHandler(v -> node.close());
        node.closeHandler(v -> executor.close());
        wire.accept(executor, node);
        executor.resume();
      });
    }).listen(0, "127.0.0.1").await();
  }
}
