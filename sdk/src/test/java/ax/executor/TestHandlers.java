package ax.executor;

/** Handlers for the SDK tests. */
final class TestHandlers {
  private TestHandlers() {
  }

  static final TaskHandler NOOP = ctx -> null;

  /** Returns the payload with who ran it. */
  static final TaskHandler ECHO = ctx -> new io.vertx.core.json.JsonObject()
      .put("payload", ctx.payload())
      .put("executor_id", ctx.executorId())
      .put("shard_index", ctx.shardIndex());

  /** Sleeps {@code payload.ms} milliseconds (default 100). */
  static final TaskHandler SLEEP = ctx -> {
    Object ms = ctx.payloadObject().getValue("ms");
    Thread.sleep(ms instanceof Number n ? Math.max(0, n.longValue()) : 100);
    return null;
  };

  static final TaskHandler FAIL = ctx -> {
    throw new IllegalStateException("demo failure");
  };
}
