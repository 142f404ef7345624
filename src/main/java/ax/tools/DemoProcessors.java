package ax.tools;

import ax.executor.TaskHandler;
import io.vertx.core.json.JsonObject;

import java.util.Map;

/** The processors of {@code ax executor}, for demos and end-to-end tests. */
final class DemoProcessors {
  private DemoProcessors() {
  }

  /** Returns null. */
  static final TaskHandler NOOP = ctx -> null;

  /** Returns the payload with who ran it. */
  static final TaskHandler ECHO = ctx -> new JsonObject()
      .put("payload", ctx.payload())
      .put("executor_id", ctx.executorId())
      .put("shard_index", ctx.shardIndex());

  /** Sleeps {@code payload.ms} milliseconds (default 100). */
  static final TaskHandler SLEEP = ctx -> {
    Object ms = ctx.payloadObject().getValue("ms");
    Thread.sleep(ms instanceof Number n ? Math.max(0, n.longValue()) : 100);
    return null;
  };

  /** Always fails. */
  static final TaskHandler FAIL = ctx -> {
    throw new IllegalStateException("demo failure");
  };

  /** All of them by name. */
  static final Map<String, TaskHandler> ALL = Map.of("noop", NOOP, "echo", ECHO, "sleep", SLEEP, "fail", FAIL);
}
