package ax.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The WAL one database wrote from an LSN on, read as it is written ({@code pg_waldump --follow}), so that other
 * databases writing to the same cluster at the same time do not count. Only where the bench can read the server's
 * WAL directory (same machine, run as root or postgres) and the server's {@code pg_waldump} is installed; otherwise
 * {@link #start} returns null and the caller keeps the cluster-wide figure.
 *
 * <p>A record that changes a block belongs to that block's database, and so does every record of its transaction
 * (its commit record, say); a record of neither (checkpoint, running transactions, a shared catalog) is "shared".
 * Following keeps the reading ahead of the segment recycling a checkpoint does, which a dump after the fact is not.
 */
final class WalByDatabase implements AutoCloseable {
  private static final Pattern RECORD = Pattern.compile(
      "^rmgr: \\S+\\s+len \\(rec/tot\\):\\s*\\d+/\\s*(\\d+), tx:\\s*(\\d+), lsn: ([0-9A-F]+/[0-9A-F]+),.*");
  private static final Pattern BLOCK = Pattern.compile("rel \\d+/(\\d+)/\\d+");

  private final List<String> command;
  /** pg_waldump's messages, shown when the figure cannot be had. */
  private final Path errors;
  private final long dbOid;
  private volatile Process dump;
  private volatile boolean closed;
  private final Thread reader;
  private final Map<Long, Long> dbOfTransaction = new HashMap<>();
  private long ours;
  private long shared;
  private long others;
  private long readTo;
  private long until = Long.MAX_VALUE;

  private WalByDatabase(List<String> command, long dbOid) throws IOException {
    this.command = command;
    this.errors = Files.createTempFile("ax-bench-waldump", ".log");
    this.dbOid = dbOid;
    this.reader = new Thread(this::read, "wal-by-database");
    reader.setDaemon(true);
    reader.start();
  }

  /** Follows the WAL from {@code fromLsn}, attributing it to {@code c}'s database; null where that is not possible. */
  static WalByDatabase start(Connection c, String fromLsn) {
    try (Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT current_setting('data_directory'), current_setting('server_version_num'),"
             + " (SELECT oid FROM pg_database WHERE datname = current_database())")) {
      rs.next();
      Path wal = Path.of(rs.getString(1), "pg_wal");
      Path bin = Path.of("/usr/lib/postgresql", Integer.toString(rs.getInt(2) / 10000), "bin", "pg_waldump");
      if (!Files.isReadable(wal) || !Files.isExecutable(bin)) {
        return null;
      }
      // line-buffered, so a record is read as soon as pg_waldump has decoded it
      return new WalByDatabase(List.of("stdbuf", "-oL", bin.toString(), "--follow", "-p", wal.toString(),
          "--start=" + fromLsn), rs.getLong(3));
    } catch (SQLException | IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Runs the dump and reads it. pg_waldump exits at once when nothing has been written at the start position yet
   * ("could not find a valid record after"), so until it has shown a record it is started again every 200 ms.
   */
  private void read() {
    try {
      while (!closed) {
        dump = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(errors.toFile())).start();
        if (readRecords(dump) || closed) {
          return;
        }
        Thread.sleep(200);
      }
    } catch (IOException | InterruptedException e) {
      // cannot run the dump: until() answers null
    } finally {
      synchronized (this) {
        closed = true;
        notifyAll();
      }
    }
  }

  /** Reads one run of the dump until it ends or passes the end asked for; whether it showed any record. */
  private boolean readRecords(Process p) throws IOException {
    boolean any = false;
    try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        Matcher m = RECORD.matcher(line);
        if (m.matches()) {
          any = true;
          if (!add(line, Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), lsn(m.group(3)))) {
            break;
          }
        }
      }
    } finally {
      p.destroy();
    }
    return any;
  }

  /** Adds one record; false once it starts at or past the end asked for. */
  private synchronized boolean add(String line, long bytes, long xid, long lsn) {
    if (lsn >= until) {
      readTo = Long.MAX_VALUE;
      notifyAll();
      return false;
    }
    Matcher b = BLOCK.matcher(line);
    Long db = b.find() ? Long.valueOf(b.group(1)) : null;
    if (db != null && db != 0 && xid != 0) {
      dbOfTransaction.putIfAbsent(xid, db);
    }
    if ((db == null || db == 0) && xid != 0) {
      db = dbOfTransaction.get(xid);
    }
    if (db == null || db == 0) {
      shared += bytes;
    } else if (db == dbOid) {
      ours += bytes;
    } else {
      others += bytes;
    }
    readTo = lsn + bytes; // where the record ends, less any page headers it spans
    notifyAll();
    return true;
  }

  /**
   * WAL bytes up to {@code toLsn}: this database's, shared and other databases'; null if the dump did not get there
   * in time. Done once the last record read ends within a page of {@code toLsn} (nothing may come after it for a
   * while): what it can miss is under 8 kB.
   */
  synchronized long[] until(String toLsn, long timeoutMs) throws InterruptedException {
    until = lsn(toLsn);
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (readTo < until - 8192 && System.currentTimeMillis() < deadline && !closed) {
      wait(200);
    }
    if (readTo < until - 8192) {
      System.err.println("WalByDatabase: pg_waldump reached " + Long.toHexString(readTo) + " of " + toLsn + " (closed "
          + closed + "): " + tail());
      return null;
    }
    return new long[] {ours, shared, others};
  }

  private String tail() {
    try {
      String s = Files.readString(errors);
      return s.substring(Math.max(0, s.length() - 600));
    } catch (IOException e) {
      return e.toString();
    }
  }

  static long lsn(String s) {
    int slash = s.indexOf('/');
    return (Long.parseLong(s.substring(0, slash), 16) << 32) | Long.parseLong(s.substring(slash + 1), 16);
  }

  @Override
  public void close() {
    closed = true;
    try {
      Files.deleteIfExists(errors);
    } catch (IOException ignored) {
      // a temp file
    }
    Process p = dump;
    if (p != null) {
      p.destroy();
    }
  }
}
