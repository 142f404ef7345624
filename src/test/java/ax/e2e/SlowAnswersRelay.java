package ax.e2e;

import io.vertx.core.Vertx;
import io.vertx.core.net.NetServer;

/**
 * A relay between an executor and a node's bridge that holds everything the executor sends (its acks,
 * heartbeats and results) for a fixed time before passing it on, in order; what the node sends passes at
 * once. It keeps an ack on its way to the node long enough for the test to stop the node meanwhile.
 */
final class SlowAnswersRelay implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final NetServer server;

  SlowAnswersRelay(int bridgePort, long delayMs) {
    server = BridgeRelay.listen(vertx, bridgePort, (executor, node) -> {
      executor.closeHandler(v -> vertx.setTimer(delayMs, id -> node.close())); // after what it sent last
      // one timer per chunk, all with the same delay, fire in the order they were set
      executor.handler(chunk -> vertx.setTimer(delayMs, id -> node.write(chunk)));
      node.handler(executor::write);
    });
  }

  String servers() {
    return "127.0.0.1:" + server.actualPort();
  }

  @Override
  public void close() {
    vertx.close().await();
  }
}
