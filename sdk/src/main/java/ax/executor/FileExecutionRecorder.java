package ax.executor;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * Appends {@code task_id attempt shard_index executor_id started_at_us} per started execution to a file,
 * flushed per line so a killed executor leaves every line it started. Tests compare these files across
 * executors to prove no task ran twice; {@code started_at_us} (the wall clock when the handler was called,
 * microseconds since the epoch) lets a benchmark on the same machine measure lateness where the work runs.
 */
public final class FileExecutionRecorder implements ExecutionRecorder, Closeable {
  private final BufferedWriter out;

  public FileExecutionRecorder(Path file) throws IOException {
    this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
        StandardOpenOption.APPEND, StandardOpenOption.WRITE);
  }

  @Override
  public synchronized void started(TaskContext ctx) {
    try {
      out.write(ctx.taskId() + " " + ctx.attempt() + " " + ctx.shardIndex() + " " + ctx.executorId() + " "
          + epochMicros(Instant.now()));
      out.newLine();
      out.flush();
    } catch (IOException e) {
      // A test relying on the file must see the failure rather than a silently short file.
      throw new UncheckedIOException("cannot record execution of task " + ctx.taskId(), e);
    }
  }

  static long epochMicros(Instant t) {
    return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000;
  }

  @Override
  public synchronized void close() throws IOException {
    out.close();
  }
}
