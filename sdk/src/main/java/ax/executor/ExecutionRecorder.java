package ax.executor;

/**
 * Told about every execution a handler actually starts (dedupe hits are not started, so not told).
 * Called on the worker thread just before the handler, so implementations must be thread-safe.
 */
@FunctionalInterface
public interface ExecutionRecorder {
  ExecutionRecorder NONE = ctx -> { };

  void started(TaskContext ctx);
}
