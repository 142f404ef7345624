package ax.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Follows an executor's record file ({@code task_id attempt shard executor started_at_us}, one line per
 * execution started, appended while the bench reads): each call returns the complete lines added since the
 * previous one; a line still being written waits for the next call. The records are ASCII.
 */
public final class RecordTail {
  private final Path file;
  private long position;
  private final StringBuilder partial = new StringBuilder();
  private final ByteBuffer buffer = ByteBuffer.allocate(256 * 1024);

  /** Follows {@code file} from its current end: what was recorded before is not returned. */
  public static RecordTail fromEnd(Path file) throws IOException {
    return new RecordTail(file, Files.size(file));
  }

  public static RecordTail fromStart(Path file) {
    return new RecordTail(file, 0);
  }

  private RecordTail(Path file, long position) {
    this.file = file;
    this.position = position;
  }

  public synchronized List<String> newLines() throws IOException {
    List<String> lines = new ArrayList<>();
    try (SeekableByteChannel ch = Files.newByteChannel(file)) {
      ch.position(position);
      int read;
      while ((read = ch.read(buffer)) > 0) {
        position += read;
        partial.append(new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII));
        buffer.clear();
      }
    }
    // one pass, one delete: deleting line by line shifted the rest of a read each time (quadratic in a
    // whole file of 50 000 records read at once)
    int start = 0;
    int nl;
    while ((nl = partial.indexOf("\n", start)) >= 0) {
      String line = partial.substring(start, nl).trim();
      if (!line.isEmpty()) {
        lines.add(line);
      }
      start = nl + 1;
    }
    partial.delete(0, start);
    return lines;
  }
}
