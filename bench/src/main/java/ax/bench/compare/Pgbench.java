package ax.bench.compare;

import ax.bench.BenchDb;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What this PostgreSQL can do at all, measured with pgbench on a scratch database in the same run: the
 * ceiling every scheduler here works under. Two custom scripts, durable commits (server defaults):
 * a single-row {@code UPDATE … WHERE id = random} (a claim or completion is at least one such write) and a
 * {@code INSERT … SELECT generate_series} of {@value #ROWS_PER_INSERT} rows into a task-shaped table
 * (what batch ingest is at best).
 */
public final class Pgbench {
  static final int ROWS_PER_INSERT = 1000;
  static final int UPDATE_ROWS = 100_000;
  private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)");

  /** Transactions/s of each script, and the exact command lines. */
  public record Figures(double updateTps, double insertRowsPerSecond, List<String> commands, String version) {
  }

  private Pgbench() {}

  public static Figures run(String pgServer, int clients, int jobs, int seconds, Path workDir) throws Exception {
    try (BenchDb db = new BenchDb(pgServer)) {
      try (Connection c = db.connect(); Statement st = c.createStatement()) {
        st.execute("CREATE TABLE pgb_rows (id integer PRIMARY KEY, v bigint NOT NULL DEFAULT 0)");
        st.execute("INSERT INTO pgb_rows (id) SELECT generate_series(1, " + UPDATE_ROWS + ")");
        st.execute("CREATE TABLE pgb_tasks (id bigserial PRIMARY KEY, trigger_time timestamptz NOT NULL, "
            + "status text NOT NULL, payload jsonb)");
        st.execute("CREATE INDEX pgb_tasks_trigger ON pgb_tasks (trigger_time, status)");
        st.execute("VACUUM ANALYZE pgb_rows");
      }
      Files.createDirectories(workDir);
      Path update = workDir.resolve("pgbench-update.sql");
      Files.writeString(update, "\\set id random(1, " + UPDATE_ROWS + ")\n"
          + "UPDATE pgb_rows SET v = v + 1 WHERE id = :id;\n", StandardCharsets.UTF_8);
      Path insert = workDir.resolve("pgbench-insert.sql");
      Files.writeString(insert, "INSERT INTO pgb_tasks (trigger_time, status, payload) "
          + "SELECT now() + g * interval '1 ms', 'DELAYED', jsonb_build_object('i', g) "
          + "FROM generate_series(1, " + ROWS_PER_INSERT + ") AS g;\n", StandardCharsets.UTF_8);
      List<String> commands = new ArrayList<>();
      double updateTps = tps(db, update, clients, jobs, seconds, commands);
      double insertTps = tps(db, insert, clients, jobs, seconds, commands);
      return new Figures(updateTps, insertTps * ROWS_PER_INSERT, commands, version());
    }
  }

  private static double tps(BenchDb db, Path script, int clients, int jobs, int seconds, List<String> commands)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("pgbench", "-n", "-f", script.toString(), "-c",
        Integer.toString(clients), "-j", Integer.toString(jobs), "-T", Integer.toString(seconds)));
    cmd.addAll(db.cliArgs());
    cmd.add(db.name());
    commands.add(String.join(" ", cmd).replace(db.name(), "<scratch db>"));
    System.out.println("[pgbench] " + String.join(" ", cmd));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int code = p.waitFor();
    Matcher m = TPS.matcher(output);
    if (code != 0 || !m.find()) {
      throw new IllegalStateException("pgbench failed (exit " + code + "):\n" + output);
    }
    return Double.parseDouble(m.group(1));
  }

  private static String version() {
    try {
      Process p = new ProcessBuilder("pgbench", "--version").redirectErrorStream(true).start();
      return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      return "pgbench (version unknown)";
    }
  }
}
