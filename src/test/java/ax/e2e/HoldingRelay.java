package ax.e2e;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A relay between an executor and a node's bridge that, between {@link #hold()} and {@link #release()},
 * holds everything the executor sends (its acks, heartbeats and results) and then passes it on in order;
 * what the node sends always passes at once. It keeps an ack on its way to the node for exactly as long
 * as the test needs, instead of for a fixed time (with a fixed delay the ack sometimes reached the node's
 * socket before the ack timeout fired, and was read first).
 */
final class HoldingRelay implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final NetServer server;
  private final List<Pipe> pipes = new CopyOnWriteArrayList<>();
  private volatile boolean holding;

  /** One executor connection; touched only on its event loop. */
  private final class Pipe {
    final Context context = Vertx.currentContext();
    final NetSocket node;
    final List<Buffer> held = new ArrayList<>();

    Pipe(NetSocket node) {
      this.node = node;
    }

    void fromExecutor(Buffer chunk) {
      if (holding || !held.isEmpty()) {
        held.add(chunk);
      } else {
        node.write(chunk);
      }
    }

    void flush() {
      held.forEach(node::write);
      held.clear();
    }
  }

  HoldingRelay(int bridgePort) {
    server = BridgeRelay.listen(vertx, bridgePort, (executor, node) -> {
      Pipe pipe = new Pipe(node);
      pipes.add(pipe);
      executor.handler(pipe::fromExecutor);
      node.handler(executor::write);
    });
  }

  String servers() {
    return "127.0.0.1:" + server.actualPort();
  }

  /** From now on, what the executor sends waits here. */
  void hold() {
    holding = true;
  }

  /**
   * Passes on everything held, in order, and lets what follows through. A chunk that arrives before the
   * flush runs joins the held ones (see {@link Pipe#fromExecutor}), so nothing overtakes them.
   */
  void release() {
    holding = false;
    for (Pipe pipe : pipes) {
      pipe.context.runOnContext(v -> pipe.flush());
    }
  }

  @Override
  public void close() {
    vertx.close().await();
  }
}
