package ax.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * What PostgreSQL paid for a stretch of work, per task: {@link #start} takes a snapshot, {@link #stop} the figures.
 *
 * <ul>
 *   <li><b>WAL bytes</b> = {@code pg_wal_lsn_diff(pg_current_wal_lsn() at stop, pg_current_wal_lsn() at start)}:
 *   the whole cluster's, so anything else writing to the same PostgreSQL at the time is in it; where the bench can
 *   read the server's WAL, the records of the measured database alone (and of none), by {@link WalByDatabase};</li>
 *   <li><b>PostgreSQL CPU</b> = user + system CPU (/proc, 10 ms ticks) of the backends connected to the measured
 *   database and of PostgreSQL's background processes (WAL writer, checkpointer, …), from a sample of
 *   {@code pg_stat_activity} every second: a backend that ends between two samples loses at most a second of its
 *   CPU. Other databases' sessions are counted apart ({@link Figures#othersCpuSeconds}): above 0 they also wrote
 *   WAL, so the WAL figure is inflated. The probe's own backend is left out.</li>
 * </ul>
 *
 * The figures also count the checkpoints that began in the interval ({@code pg_stat_bgwriter}): after one, the first
 * change to each page logs the whole 8 kB page, and anyone's {@code CREATE DATABASE} or {@code DROP DATABASE} forces
 * one, so a count above 0 says the WAL figure reads high. The probe holds one connection from start to stop (closed
 * by {@link #close}).
 */
public final class DbCost implements AutoCloseable {
  /** The performance issue's targets for ax, per executed task. */
  public static final double TARGET_WAL_BYTES = 600;
  public static final double TARGET_PG_CPU_US = 40;

  private static final String CHECKPOINTS = "SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter";
  /** Every PostgreSQL process but the probe's own backend; ours = this database's or a background process. */
  private static final String PROCESSES = """
      SELECT pid, coalesce(datname = current_database(), true) FROM pg_stat_activity WHERE pid <> pg_backend_pid()""";
  private static final long SAMPLE_MS = 1000;

  private final Connection c;
  private final String lsn0;
  private final long checkpoints0;
  /** pid → its CPU at the start (0 for one born later) and at the last sample; only the sampler touches it. */
  private final Map<Long, Proc> processes = new HashMap<>();
  private final Thread sampler;
  /** This database's own WAL, where the bench can read the server's WAL; null otherwise. */
  private final WalByDatabase walByDb;
  private volatile boolean stopping;

  private static final class Proc {
    final boolean ours;
    final double first;
    double last;

    Proc(boolean ours, double first) {
      this.ours = ours;
      this.first = first;
      this.last = first;
    }
  }

  private DbCost(Connection c, boolean ownWal) throws SQLException {
    this.c = c;
    sample(true);
    try (Statement st = c.createStatement()) {
      this.checkpoints0 = single(st.executeQuery(CHECKPOINTS)).getLong(1);
      this.lsn0 = single(st.executeQuery("SELECT pg_current_wal_lsn()::text")).getString(1);
    }
    this.walByDb = ownWal ? WalByDatabase.start(c, lsn0) : null;
    this.sampler = new Thread(this::sampleUntilStopped, "db-cost-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }

  /**
   * Snapshots the WAL position, the checkpoint count and PostgreSQL's CPU now; the probe owns {@code c} from here on.
   * {@code ownWal}: also tell this database's WAL apart ({@link WalByDatabase}, where possible; it costs the bench
   * about a second of CPU per 100 000 WAL records). Options: {@code --cluster-wal} turns it off.
   */
  public static DbCost start(Connection c, Options o) throws SQLException {
    try {
      return new DbCost(c, !o.flag("cluster-wal"));
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  private void sampleUntilStopped() {
    while (!stopping) {
      try {
        Thread.sleep(SAMPLE_MS);
        sample(false);
      } catch (InterruptedException e) {
        return;
      } catch (SQLException e) {
        if (!stopping) {
          System.err.println("DbCost: sampling pg_stat_activity failed, CPU from the start and stop only: " + e);
        }
        return;
      }
    }
  }

  private synchronized void sample(boolean atStart) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(PROCESSES)) {
      while (rs.next()) {
        long pid = rs.getLong(1);
        double cpu = ServerProcess.cpuSeconds(pid);
        if (!Double.isNaN(cpu)) {
          boolean ours = rs.getBoolean(2);
          processes.computeIfAbsent(pid, p -> new Proc(ours, atStart ? cpu : 0)).last = cpu;
        }
      }
    }
  }

  /** The figures from {@link #start} to now, divided by {@code tasks}. */
  public Figures stop(long tasks) throws SQLException {
    stopping = true;
    sampler.interrupt();
    try {
      sampler.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sample(false);
    double wal;
    String lsn1;
    try (PreparedStatement q = c.prepareStatement(
        "SELECT pg_wal_lsn_diff(l, ?::pg_lsn), l::text FROM pg_current_wal_lsn() l")) {
      q.setString(1, lsn0);
      ResultSet rs = single(q.executeQuery());
      wal = rs.getDouble(1);
      lsn1 = rs.getString(2);
    }
    long checkpoints;
    try (Statement st = c.createStatement()) {
      checkpoints = single(st.executeQuery(CHECKPOINTS)).getLong(1) - checkpoints0;
    }
    double ours = 0;
    double others = 0;
    synchronized (this) {
      for (Proc p : processes.values()) {
        if (p.ours) {
          ours += p.last - p.first;
        } else {
          others += p.last - p.first;
        }
      }
    }
    long[] walSplit = null;
    if (walByDb != null) {
      try {
        walSplit = walByDb.until(lsn1, 15_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      walByDb.close();
    }
    return new Figures(tasks, wal, walSplit == null ? Double.NaN : walSplit[0] + walSplit[1], ours, others, checkpoints,
        lsn0, lsn1);
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
    stopping = true;
    sampler.interrupt();
    if (walByDb != null) {
      walByDb.close();
    }
    try {
      c.close();
    } catch (SQLException ignored) {
      // the database is being dropped anyway
    }
  }

  /**
   * What PostgreSQL paid over an interval in which {@code tasks} tasks were stored or executed: the cluster's WAL
   * bytes, this database's own (with the records of no database, such as checkpoints; NaN where the WAL could not be
   * read), CPU seconds of this database's backends and the background processes, and of other databases' sessions,
   * the checkpoints begun, and the interval's WAL positions (for {@code pg_waldump --start=fromLsn --end=toLsn}).
   */
  public record Figures(long tasks, double clusterWalBytes, double ownWalBytes, double pgCpuSeconds,
                        double othersCpuSeconds, long checkpoints, String fromLsn, String toLsn) {
    /** Other databases' sessions used more than this much CPU: they were busy, and wrote WAL. */
    private static final double OTHERS_BUSY_S = 0.1;

    /** This database's WAL where it could be told apart, else the cluster's. */
    public double walBytes() {
      return Double.isNaN(ownWalBytes) ? clusterWalBytes : ownWalBytes;
    }

    /** WAL bytes per task (NaN without tasks). */
    public double walPerTask() {
      return tasks == 0 ? Double.NaN : walBytes() / tasks;
    }

    /** PostgreSQL CPU µs per task (NaN without tasks or without /proc). */
    public double pgCpuUsPerTask() {
      return tasks == 0 ? Double.NaN : pgCpuSeconds * 1e6 / tasks;
    }

    /**
     * "812 B (16.2 MB)": WAL per task and in all; "of the cluster" when this database's own could not be told apart,
     * then with a warning if other databases were busy; "; 1 checkpoint" when one began in the interval.
     */
    public String wal() {
      boolean own = !Double.isNaN(ownWalBytes);
      return Report.fmt(walPerTask(), 0) + " B (" + Report.fmt(walBytes() / 1e6, 1) + " MB"
          + (own ? "" : " of the cluster")
          + (!own && othersBusy() ? ", ⚠ other databases busy: " + Report.fmt(othersCpuSeconds, 1) + " s CPU" : "")
          + (checkpoints == 0 ? "" : "; " + checkpoints + (checkpoints == 1 ? " checkpoint" : " checkpoints")) + ")";
    }

    /** Whether other databases' sessions used noticeable CPU in the interval (and so wrote WAL). */
    public boolean othersBusy() {
      return othersCpuSeconds > OTHERS_BUSY_S;
    }

    /** "57 µs (1.14 s)": PostgreSQL CPU per task and in all. */
    public String cpu() {
      return Report.fmt(pgCpuUsPerTask(), 0) + " µs (" + Report.fmt(pgCpuSeconds, 2) + " s)";
    }

    /** "WAL 812 B (16.2 MB) · CPU 57 µs (1.14 s) per task (WAL 0/E1BE0C0..0/F3A2B10, cluster 40.1 MB, …)", for logs. */
    public String describe() {
      return "WAL " + wal() + " · CPU " + cpu() + " per task (WAL " + fromLsn + ".." + toLsn + ", cluster "
          + Report.fmt(clusterWalBytes / 1e6, 1) + " MB, other databases' CPU " + Report.fmt(othersCpuSeconds, 2) + " s)";
    }

    /** Whether both figures are within the targets. */
    public String verdict() {
      return "WAL ≤ " + Report.fmt(TARGET_WAL_BYTES, 0) + " B: **" + (walPerTask() <= TARGET_WAL_BYTES ? "met" : "NOT met")
          + "**, PostgreSQL CPU ≤ " + Report.fmt(TARGET_PG_CPU_US, 0) + " µs: **"
          + (pgCpuUsPerTask() <= TARGET_PG_CPU_US ? "met" : "NOT met") + "**";
    }
  }
}
