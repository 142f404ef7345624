package ax.bench.peers;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/**
 * A peer scheduler inside its own JVM ({@link PeerMain}), set up as its users run it in production.
 * Task bodies are no-ops that report {@code "<phase>/<index>"} to the recorder given at construction.
 */
public interface Peer extends AutoCloseable {
  /** Creates the peer's official schema on the (empty) database and starts the scheduler. */
  void start() throws Exception;

  /** Schedules tasks {@code from .. to-1} of a phase through the peer's own client API, in one call. */
  void schedule(String phase, Schedule schedule, int from, int to) throws Exception;

  /**
   * Creates recurring schedules {@code from .. to-1} of a recurring phase through the peer's own API, in one
   * call; their executions report {@code "<phase>/<index>"} and the due time they ran for to
   * {@link Recorder#occurred}.
   */
  void scheduleRecurring(String phase, RecurringPlan plan, int from, int to) throws Exception;

  /** Where task bodies report: one-shot tasks by name, recurring occurrences by name and due time. */
  interface Recorder {
    void executed(String name);

    void occurred(String name, long dueMs);
  }

  /**
   * Inserts {@code count} tasks due over {@code [startMs, startMs+spanMs)} straight into the peer's tables
   * with {@code INSERT … SELECT generate_series}, named {@code far-<offset+n>}: the stored backlog of the
   * flatness workload. They are what the peer itself would have written for a one-shot task.
   */
  void storeFuture(Connection c, long offset, long count, long startMs, long spanMs) throws SQLException;

  /** Every setting that differs from the peer's defaults or matters to the figures, for the report. */
  Map<String, String> settings();

  @Override
  void close();

  /** Runs a whole SQL script (statements separated by ';' at line ends, '--' comments allowed). */
  static void runScript(Connection c, String sql) throws SQLException {
    StringBuilder clean = new StringBuilder();
    for (String line : sql.split("\n")) {
      if (!line.strip().startsWith("--")) {
        clean.append(line).append('\n');
      }
    }
    try (var st = c.createStatement()) {
      for (String stmt : clean.toString().split(";\\s*\n")) {
        if (!stmt.isBlank()) {
          st.execute(stmt);
        }
      }
    }
  }

  /** The task name encodes phase and index; "phase/i" → i. */
  static int index(String name) {
    return Integer.parseInt(name.substring(name.lastIndexOf('/') + 1));
  }

  static String phase(String name) {
    return name.substring(0, name.lastIndexOf('/'));
  }
}
