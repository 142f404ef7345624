package ax.bench.compare;

import ax.bench.peers.Outcome;
import ax.bench.peers.Schedule;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/**
 * One scheduler under test, started on its own fresh database, as the comparison drives it: schedule a
 * phase of tasks, watch them execute, read back lateness and correctness. Implementations: ax (a
 * separate process behind its signed HTTP API) and the peers (a separate JVM per peer), which run every
 * workload ({@link FullContender}), and ax with its executors, which runs one-shot workloads only.
 */
public interface Contender extends AutoCloseable {
  String name();

  /** How this system is set up, one row per setting, for the report. */
  Map<String, String> settings();

  /** Schedules every task of {@code s} as one phase from {@code threads} concurrent clients, in chunks. */
  Ingested ingest(String phase, Schedule s, int threads, int chunk) throws Exception;

  /** Distinct tasks of the phase executed so far. */
  long executed(String phase) throws Exception;

  Outcome outcome(String phase) throws Exception;

  boolean alive();

  /** CPU seconds the scheduler process used so far. */
  double cpuSeconds();

  /** A new connection to this system's database, for the bench's own probes ({@link ax.bench.DbCost}). */
  Connection connectDb() throws SQLException;

  @Override
  void close();

  /** What one ingest produced: wall time from first call to last answer, and per-task outcomes. */
  record Ingested(long ms, long accepted, long rejected, String errorSample) {
    public double perSecond() {
      return accepted * 1000.0 / Math.max(1, ms);
    }
  }
}
