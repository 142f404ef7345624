package ax.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What PostgreSQL paid for a stretch of work, per task: {@link #start} takes a snapshot, {@link #stop} the figures.
 *
 * <ul>
 *   <li><b>WAL bytes</b> = {@code pg_wal_lsn_diff(pg_current_wal_lsn() at stop, pg_current_wal_lsn() at start)};</li>
 *   <li><b>PostgreSQL CPU</b> = the growth of {@link ProcCpu#ofCommand ProcCpu.ofCommand("postgres")}: every
 *   PostgreSQL process, backends that ended in between included; /proc counts in 10 ms ticks per process.</li>
 * </ul>
 *
 * Both are the whole cluster's, not one database's: anything else writing or running on the same PostgreSQL at the
 * time inflates them, so the bench must run alone. The figures also count the checkpoints that began in the interval
 * ({@code pg_stat_bgwriter}): after one, the first change to each page logs the whole 8 kB page, and anyone's
 * {@code CREATE DATABASE} or {@code DROP DATABASE} forces one, so a count above 0 says the WAL figure is inflated.
 * The probe holds one connection from start to stop (closed by {@link #close}); its queries are in the figures, a
 * negligible share.
 */
public final class DbCost implements AutoCloseable {
  /** The performance issue's targets for ax, per executed task. */
  public static final double TARGET_WAL_BYTES = 600;
  public static final double TARGET_PG_CPU_US = 40;

  private static final String CHECKPOINTS = "SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter";

  private final Connection c;
  private final String lsn0;
  private final long checkpoints0;
  private final double cpu0;

  private DbCost(Connection c, String lsn0, long checkpoints0, double cpu0) {
    this.c = c;
    this.lsn0 = lsn0;
    this.checkpoints0 = checkpoints0;
    this.cpu0 = cpu0;
  }

  /** Snapshots the WAL position, the checkpoint count and PostgreSQL's CPU now; the probe owns {@code c} from here on. */
  public static DbCost start(Connection c) throws SQLException {
    double cpu = ProcCpu.ofCommand("postgres");
    try (Statement st = c.createStatement()) {
      long checkpoints = single(st.executeQuery(CHECKPOINTS)).getLong(1);
      return new DbCost(c, single(st.executeQuery("SELECT pg_current_wal_lsn()::text")).getString(1), checkpoints, cpu);
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /** The figures from {@link #start} to now, divided by {@code tasks}. */
  public Figures stop(long tasks) throws SQLException {
    double wal;
    String lsn1;
    try (PreparedStatement q = c.prepareStatement(
        "SELECT pg_wal_lsn_diff(l, ?::pg_lsn), l::text FROM pg_current_wal_lsn() l")) {
      q.setString(1, lsn0);
      ResultSet rs = single(q.executeQuery());
      wal = rs.getDouble(1);
      lsn1 = rs.getString(2);
    }
    double cpu = ProcCpu.ofCommand("postgres") - cpu0;
    long checkpoints;
    try (Statement st = c.createStatement()) {
      checkpoints = single(st.executeQuery(CHECKPOINTS)).getLong(1) - checkpoints0;
    }
    return new Figures(tasks, wal, cpu, checkpoints, lsn0, lsn1);
  }

  /** The result set positioned on its one row (closed with its statement). */
  private static ResultSet single(ResultSet rs) throws SQLException {
    if (!rs.next()) {
      throw new SQLException("no row");
    }
    return rs;
  }

  @Override
  public void close() {
    try {
      c.close();
    } catch (SQLException ignored) {
      // the database is being dropped anyway
    }
  }

  /**
   * WAL bytes, PostgreSQL CPU seconds and checkpoints begun over an interval in which {@code tasks} tasks were stored
   * or executed, and the interval's WAL positions (for {@code pg_waldump --start=fromLsn --end=toLsn}).
   */
  public record Figures(long tasks, double walBytes, double pgCpuSeconds, long checkpoints, String fromLsn,
                        String toLsn) {
    /** WAL bytes per task (NaN without tasks). */
    public double walPerTask() {
      return tasks == 0 ? Double.NaN : walBytes / tasks;
    }

    /** PostgreSQL CPU µs per task (NaN without tasks or without /proc). */
    public double pgCpuUsPerTask() {
      return tasks == 0 ? Double.NaN : pgCpuSeconds * 1e6 / tasks;
    }

    /** "812 B (16.2 MB)": WAL per task and in all, with "; 1 checkpoint" when one began in the interval. */
    public String wal() {
      return Report.fmt(walPerTask(), 0) + " B (" + Report.fmt(walBytes / 1e6, 1) + " MB"
          + (checkpoints == 0 ? "" : "; " + checkpoints + (checkpoints == 1 ? " checkpoint" : " checkpoints")) + ")";
    }

    /** "57 µs (1.14 s)": PostgreSQL CPU per task and in all. */
    public String cpu() {
      return Report.fmt(pgCpuUsPerTask(), 0) + " µs (" + Report.fmt(pgCpuSeconds, 2) + " s)";
    }

    /** "WAL 812 B (16.2 MB) · CPU 57 µs (1.14 s) per task (WAL 0/E1BE0C0..0/F3A2B10)", for logs. */
    public String describe() {
      return "WAL " + wal() + " · CPU " + cpu() + " per task (WAL " + fromLsn + ".." + toLsn + ")";
    }

    /** Whether both figures are within the targets. */
    public String verdict() {
      return "WAL ≤ " + Report.fmt(TARGET_WAL_BYTES, 0) + " B: **" + (walPerTask() <= TARGET_WAL_BYTES ? "met" : "NOT met")
          + "**, PostgreSQL CPU ≤ " + Report.fmt(TARGET_PG_CPU_US, 0) + " µs: **"
          + (pgCpuUsPerTask() <= TARGET_PG_CPU_US ? "met" : "NOT met") + "**";
    }
  }
}
