package ax.executor;

/**
 * The code behind one processor name. Runs on a worker thread of its pool, so it may block.
 *
 * <p>The returned value becomes the task's {@code result}: null, a {@code JsonObject}, {@code JsonArray},
 * {@code String}, {@code Number}, {@code Boolean}, a {@code Map} or a {@code List} of those, at most
 * 64 KiB as JSON. A thrown exception reports the task FAILED with the exception's message as
 * {@code error}; the scheduler's retry policy decides what happens next.
 */
@FunctionalInterface
public interface TaskHandler {
  Object handle(TaskContext ctx) throws Exception;
}
