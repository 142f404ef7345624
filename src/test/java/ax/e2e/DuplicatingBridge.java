package ax.e2e;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import io.vertx.core.parsetools.RecordParser;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A relay between an executor and a node's bridge that delivers every dispatch twice: the lost-ack row of
 * the fault matrix seen from the executor, which cannot tell a duplicate from a resend. Frames from the
 * executor pass as they are; each {@code message} frame to an executor inbox is written once in order and
 * once more after a random delay of up to {@code maxDelayMs} — with 0 right behind the first, with a few
 * hundred ms often after the task has already finished. The copy carries the same reply address, so the
 * executor's second ack reaches a request the node has already settled.
 */
final class DuplicatingBridge implements AutoCloseable {
  private static final String INBOX_PREFIX = "ax.exec.inbox.";

  private final Vertx vertx = Vertx.vertx();
  private final NetServer server;
  private final long maxDelayMs;
  /** Dispatch frames delivered a second time. */
  final AtomicInteger duplicatedFrames = new AtomicInteger();
  /** Task ids that were in a dispatch delivered twice. */
  final Set<String> duplicatedTasks = ConcurrentHashMap.newKeySet();

  DuplicatingBridge(int bridgePort, long maxDelayMs) {
    this.maxDelayMs = maxDelayMs;
    server = BridgeRelay.listen(vertx, bridgePort, (executor, node) -> {
      executor.handler(node::write);
      node.handler(framesTo(executor));
    });
  }

  String servers() {
    return "127.0.0.1:" + server.actualPort();
  }

  /** Splits the node's stream into frames (4-byte length, JSON body) and forwards each, dispatches twice. */
  private RecordParser framesTo(NetSocket executor) {
    RecordParser parser = RecordParser.newFixed(4);
    parser.handler(new Handler<>() {
      private int bodyLength = -1;

      @Override
      public void handle(Buffer part) {
        if (bodyLength < 0) {
          bodyLength = part.getInt(0);
          parser.fixedSizeMode(bodyLength);
          return;
        }
        forward(executor, part);
        bodyLength = -1;
        parser.fixedSizeMode(4);
      }
    });
    return parser;
  }

  private void forward(NetSocket executor, Buffer body) {
    Buffer frame = Buffer.buffer(4 + body.length()).appendInt(body.length()).appendBuffer(body);
    executor.write(frame);
    JsonObject json = new JsonObject(body);
    String address = json.getString("address", "");
    if (!"message".equals(json.getString("type")) || !address.startsWith(INBOX_PREFIX)) {
      return;
    }
    duplicatedFrames.incrementAndGet();
    JsonObject dispatch = json.getJsonObject("body", new JsonObject());
    for (Object t : dispatch.getJsonArray("tasks", new JsonArray())) {
      if (t instanceof JsonObject task && task.getValue("task_id") != null) {
        duplicatedTasks.add(String.valueOf(task.getValue("task_id")));
      }
    }
    long delay = ThreadLocalRandom.current().nextLong(maxDelayMs + 1);
    if (delay == 0) {
      executor.write(frame);
    } else {
      vertx.setTimer(delay, id -> executor.write(frame));
    }
  }

  @Override
  public void close() {
    vertx.close().await();
  }
}
