package ax.bench.compare;

import ax.bench.Bench;
import ax.bench.BenchDb;
import ax.bench.DbCost;
import ax.bench.Report;
import ax.bench.peers.Outcome;
import ax.bench.peers.RecurringOutcome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.Histogram;

/**
 * Writes results/&lt;date&gt;/compare.md and its charts: one table per workload with a column per system and
 * the ratio of ax to each peer, the machine and every setting, the correctness of every phase, and a
 * plain verdict on the two targets (lateness p99 ≥ 10× better, burst throughput ≥ 3× better).
 */
public final class CompareReport {
  private static final String[] PCT = {"p50", "p95", "p99", "max"};

  private final Results r;
  private final List<String> systems;
  private final StringBuilder md = new StringBuilder();

  private CompareReport(Results r, List<String> systems) {
    this.r = r;
    this.systems = systems;
  }

  /** The machine, measured at the start of the run (load average included: the machine may be shared). */
  public record Machine(String cores, String memory, String jvm, String postgres, String pgSettings, String load) {
    public static Machine describe(String pgServer) {
      String cores = command("nproc");
      String mem = "?";
      try {
        for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
          if (l.startsWith("MemTotal:")) {
            mem = Report.fmt(Long.parseLong(l.replaceAll("\\D", "")) / 1048576.0, 1) + " GiB";
          }
        }
      } catch (IOException | RuntimeException ignored) {
        // stays "?"
      }
      String jvm = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
      String pg = "?";
      StringBuilder settings = new StringBuilder();
      try (BenchDb db = new BenchDb(pgServer); Connection c = db.connect(); Statement st = c.createStatement()) {
        try (ResultSet rs = st.executeQuery("SELECT version()")) {
          rs.next();
          pg = rs.getString(1);
        }
        try (ResultSet rs = st.executeQuery("SELECT name, setting, unit FROM pg_settings WHERE name IN "
            + "('synchronous_commit','fsync','wal_level','shared_buffers','max_connections','max_wal_size',"
            + "'checkpoint_timeout','work_mem','effective_io_concurrency','autovacuum') ORDER BY name")) {
          while (rs.next()) {
            settings.append(settings.length() == 0 ? "" : ", ").append(rs.getString(1)).append('=')
                .append(rs.getString(2)).append(rs.getString(3) == null ? "" : " " + rs.getString(3));
          }
        }
      } catch (Exception e) {
        pg = "unknown (" + e.getMessage() + ")";
      }
      String load = "?";
      try {
        load = Files.readString(Path.of("/proc/loadavg")).trim();
      } catch (IOException ignored) {
        // stays "?"
      }
      return new Machine(cores, mem, jvm, pg, settings.toString(), load);
    }

    private static String command(String... cmd) {
      try {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      } catch (IOException e) {
        return String.valueOf(Runtime.getRuntime().availableProcessors());
      }
    }
  }

  /** Writes compare.md and the PNGs into {@code dir}; returns the markdown file. */
  public static Path write(Path dir, Results r, List<String> systems, Machine m, String command, String wall,
                           String loadAtEnd) throws IOException {
    Files.createDirectories(dir);
    CompareReport cr = new CompareReport(r, systems);
    cr.charts(dir);
    cr.render(m, command, wall, loadAtEnd);
    Path file = dir.resolve("compare.md");
    Files.writeString(file, cr.md, StandardCharsets.UTF_8);
    return file;
  }

  private void charts(Path dir) throws IOException {
    Map<String, Histogram> burst = new LinkedHashMap<>();
    r.burst.forEach((s, p) -> burst.put(s, p.outcome().lateness()));
    if (!burst.isEmpty()) {
      Charts.latencyCdf(dir.resolve("lateness-burst.png"), "burst: lateness by percentile (" + n(r.burst) + " tasks due at once)", burst);
    }
    Map<String, Histogram> spread = new LinkedHashMap<>();
    r.spread.forEach((s, p) -> spread.put(s, p.outcome().lateness()));
    if (!spread.isEmpty()) {
      Charts.latencyCdf(dir.resolve("lateness-spread.png"), "spread: lateness by percentile (" + n(r.spread)
          + " tasks over " + window(r.spread) + " s)", spread);
    }
    Map<String, Histogram> recurring = new LinkedHashMap<>();
    r.recurring.forEach((s, p) -> recurring.put(s, p.outcome().lateness()));
    if (!recurring.isEmpty()) {
      Results.Recurring any = r.recurring.values().iterator().next();
      Charts.latencyCdf(dir.resolve("lateness-recurring.png"), "recurring: occurrence lateness by percentile ("
          + any.plan().n() + " schedules every " + any.plan().periodMs() + " ms, " + any.plan().slots() + " each)",
          recurring);
    }
    Map<String, Map<String, Double>> bars = new LinkedHashMap<>();
    Map<String, Double> ingest = new LinkedHashMap<>();
    r.ingest.forEach((s, ig) -> ingest.put(s, ig.perSecond()));
    Map<String, Double> drain = new LinkedHashMap<>();
    r.burst.forEach((s, p) -> drain.put(s, execPerSecond(p)));
    if (r.pgbench != null) {
      ingest.put("PostgreSQL (pgbench)", r.pgbench.insertRowsPerSecond());
      drain.put("PostgreSQL (pgbench)", r.pgbench.updateTps());
    }
    bars.put("ingest: tasks/s (pgbench: rows/s, 1000-row INSERTs)", ingest);
    bars.put("burst: executions/s (pgbench: single-row UPDATE tps)", drain);
    Charts.bars(dir.resolve("throughput.png"), "throughput, same machine, same PostgreSQL", "per second (log)", bars);
    if (!dbCosts().isEmpty()) {
      Charts.costBars(dir.resolve("db-wal.png"), "WAL bytes per task (the system's own records, pg_waldump --follow)",
          "bytes per task", perTask(DbCost.Figures::walPerTask), DbCost.TARGET_WAL_BYTES);
      Charts.costBars(dir.resolve("db-cpu.png"), "PostgreSQL CPU per task (the system's backends + background processes)",
          "µs per task", perTask(DbCost.Figures::pgCpuUsPerTask), DbCost.TARGET_PG_CPU_US);
    }
  }

  /** Workload label → (system → what PostgreSQL paid), for the workloads measured: ingest, burst, spread. */
  private Map<String, Map<String, DbCost.Figures>> dbCosts() {
    Map<String, Map<String, DbCost.Figures>> m = new LinkedHashMap<>();
    if (!r.ingestDb.isEmpty()) {
      m.put("ingest (per task stored)", r.ingestDb);
    }
    putPhases(m, "burst (per task executed)", r.burst);
    putPhases(m, "spread (per task executed)", r.spread);
    return m;
  }

  private static void putPhases(Map<String, Map<String, DbCost.Figures>> m, String label, Map<String, Results.Phase> ph) {
    if (!ph.isEmpty()) {
      Map<String, DbCost.Figures> bySystem = new LinkedHashMap<>();
      ph.forEach((s, p) -> bySystem.put(s, p.db()));
      m.put(label, bySystem);
    }
  }

  private Map<String, Map<String, Double>> perTask(ToDoubleFunction<DbCost.Figures> f) {
    Map<String, Map<String, Double>> m = new LinkedHashMap<>();
    dbCosts().forEach((w, bySystem) -> {
      Map<String, Double> v = new LinkedHashMap<>();
      bySystem.forEach((s, fig) -> v.put(s, f.applyAsDouble(fig)));
      m.put(w, v);
    });
    return m;
  }

  private static String n(Map<String, Results.Phase> m) {
    return m.values().stream().findFirst().map(p -> Integer.toString(p.schedule().n())).orElse("?");
  }

  private static String window(Map<String, Results.Phase> m) {
    return m.values().stream().findFirst().map(p -> Long.toString(p.schedule().windowMs() / 1000)).orElse("?");
  }

  static double execPerSecond(Results.Phase p) {
    return p.outcome().missing() > 0 ? Double.NaN : p.schedule().n() * 1000.0 / Math.max(1, p.drainMs());
  }

  // ------------------------------------------------------------------------------------------------

  private void render(Machine m, String command, String wall, String loadAtEnd) {
    line("# ax vs db-scheduler vs Quartz — same machine, same PostgreSQL, same run");
    line("");
    line("Command: `" + command + "` — wall time " + wall + ". Written by `bench/run.sh compare`; "
        + "how to read it: bench/README.md, \"compare\".");
    line("");
    verdict();
    line("## Machine");
    line("");
    line("| | |");
    line("|---|---|");
    line("| cores (nproc) | " + m.cores() + " |");
    line("| memory | " + m.memory() + " |");
    line("| JVM (bench, ax and peers) | " + m.jvm() + " |");
    line("| PostgreSQL | " + m.postgres() + " |");
    line("| PostgreSQL settings (as this server runs; durable commits for everyone; with autovacuum off nothing is vacuumed or analyzed during a run) | " + m.pgSettings() + " |");
    line("| load average at start / end | " + m.load() + " / " + loadAtEnd + " |");
    line("");
    line("The bench, every scheduler and PostgreSQL share these cores, and the machine was not otherwise idle "
        + "(see the load average), so absolute figures are noisy; the ratios were measured minutes apart under the "
        + "same conditions.");
    line("");
    method();
    pgbench();
    ingest();
    burst();
    spread();
    dbCost();
    recurring();
    flatness();
    submit();
    memory();
    correctness();
    settings();
    if (!r.notes.isEmpty()) {
      line("## Notes");
      line("");
      r.notes.forEach(x -> line("- " + x));
      line("");
    }
  }

  /** ax's forms, in the order the report names them. */
  private static final List<String> OURS = List.of("ax", AxExecutorsContender.NAME);

  private void verdict() {
    line("## Verdict");
    line("");
    if (!r.failures.isEmpty()) {
      line("**Correctness violations or failures in this run** (details under \"Correctness\"):");
      line("");
      r.failures.forEach(f -> line("- " + f));
      line("");
    } else {
      line("Every task of every phase of every system executed exactly once and none early.");
      line("");
    }
    for (String w : List.of("spread", "burst")) {
      Map<String, Results.Phase> ph = w.equals("spread") ? r.spread : r.burst;
      String best = bestPeer(ph, p -> p.outcome().lateness().getValueAtPercentile(99), true);
      for (String ours : OURS) {
        Results.Phase ax = ph.get(ours);
        if (ax == null || best == null) {
          continue;
        }
        double axP99 = ax.outcome().lateness().getValueAtPercentile(99);
        double peer = ph.get(best).outcome().lateness().getValueAtPercentile(99);
        double ratio = peer / Math.max(1, axP99);
        line("- **Lateness p99, " + w + ":** " + ours + " " + ms(axP99) + ", best peer " + best + " " + ms(peer)
            + " → " + ours + " is " + ratio(ratio) + "× lower. Target ≥ 10×: **" + (ratio >= 10 ? "met" : "NOT met")
            + "**." + incomplete(ax) + incomplete(ph.get(best)));
      }
    }
    Results.Recurring axRec = r.recurring.get("ax");
    String bestRec = null;
    for (Results.Recurring p : r.recurring.values()) {
      if (!Compare.ours(p.system()) && p.outcome().received() > 0 && (bestRec == null
          || recP99(p) < recP99(r.recurring.get(bestRec)))) {
        bestRec = p.system();
      }
    }
    if (axRec != null && bestRec != null) {
      double a = recP99(axRec);
      double b = recP99(r.recurring.get(bestRec));
      double ratio = b / Math.max(1, a);
      line("- **Lateness p99, recurring:** ax " + ms(a) + ", best peer " + bestRec + " " + ms(b) + " → ax is "
          + ratio(ratio) + "× lower. Target ≥ 10×: **" + (ratio >= 10 ? "met" : "NOT met") + "**."
          + recIncomplete(axRec) + recIncomplete(r.recurring.get(bestRec)));
    }
    String best = bestPeer(r.burst, CompareReport::execPerSecond, false);
    for (String ours : OURS) {
      Results.Phase ax = r.burst.get(ours);
      if (ax == null || best == null) {
        continue;
      }
      double a = execPerSecond(ax);
      double b = execPerSecond(r.burst.get(best));
      double ratio = a / b;
      line("- **Burst throughput:** " + ours + " " + Report.fmt(a, 0) + " executions/s, best peer " + best + " "
          + Report.fmt(b, 0) + " → " + ratio(ratio) + "×. Target ≥ 3×: **" + (ratio >= 3 ? "met" : "NOT met")
          + "**." + (ours.equals("ax") ? " (ax's tasks are HTTP calls to the bench's receiver on the same 2 cores; the "
          + "peers' are in-JVM no-ops: " + AxExecutorsContender.NAME + " is the like-for-like line.)" : ""));
    }
    line("");
  }

  private static double recP99(Results.Recurring p) {
    return p.outcome().lateness().getValueAtPercentile(99);
  }

  private static String recIncomplete(Results.Recurring p) {
    RecurringOutcome o = p.outcome();
    return o.missed() == 0 ? "" : " (" + p.system() + " missed " + o.missed() + " of " + o.expected()
        + " occurrences, so its percentiles cover only what ran)";
  }

  /** A warning when a phase's percentiles cover only the tasks that executed before the deadline. */
  private static String incomplete(Results.Phase p) {
    return p.outcome().missing() == 0 ? "" : " (" + p.system() + "'s phase is incomplete: " + p.outcome().missing()
        + " of " + p.outcome().expected() + " missing, so its percentiles cover only what ran and the comparison does not hold)";
  }

  /** The peer with the lowest (or highest) value, ignoring NaN; null if no peer was measured. */
  private String bestPeer(Map<String, Results.Phase> ph, ToDoubleFunction<Results.Phase> f, boolean lowest) {
    String best = null;
    double bv = Double.NaN;
    for (Map.Entry<String, Results.Phase> e : ph.entrySet()) {
      double v = f.applyAsDouble(e.getValue());
      if (Compare.ours(e.getKey()) || Double.isNaN(v)) {
        continue;
      }
      if (best == null || (lowest ? v < bv : v > bv)) {
        best = e.getKey();
        bv = v;
      }
    }
    return best;
  }

  private void method() {
    line("## How it was measured");
    line("");
    line("- **Processes.** ax runs as users run it: `java -Xmx512m -jar target/ax.jar server` (the settings table shows "
        + "the command of this run), a separate process, "
        + "tasks in through the signed HTTP API (`POST /openapi/v1/tasks/batch`, 1000 per request), HTTP callbacks "
        + "to a receiver in the bench JVM. Each peer runs in its own child JVM (`-Xmx512m`, the bench jar's hidden "
        + "`peer` subcommand), scheduled through its own Java client API from 4 threads in that JVM, as an "
        + "application embedding it would. No system shares a heap, JIT or GC with the bench. " + AxExecutorsContender.NAME
        + " (burst and spread only) is the same ax server with two executor processes (`ax.jar executor --processors "
        + "noop`) on its bridge and processor tasks: the like-for-like counterpart of the peers' no-op body; its CPU is "
        + "the server's and the executors' together.");
    line("- **Lateness** = `System.currentTimeMillis()` where the work lands − the intended trigger time, same "
        + "machine clock, HdrHistogram (3 significant digits): for ax at the HTTP receiver (so it includes ax's "
        + "HTTP delivery), for " + AxExecutorsContender.NAME + " in the executor when it calls the handler (its record "
        + "file), for the peers in the no-op task body (no delivery at all).");
    line("- **Fresh state.** Every workload starts every system on a fresh database (`ax_bench_<random>`) with its "
        + "official schema and a fresh process. Before burst, spread and flatness each system runs the same "
        + "warm-up burst (`--warmup-n`), so no one is measured with a cold JIT.");
    line("- **Lead.** A phase's first task is due 1.5 × (the system's measured ingest time for it) + 3 s after "
        + "scheduling starts (at least `--min-lead-s`), so ingest ends before anything is due.");
    line("- **Correctness** of every phase: each task executed exactly once, none before its trigger time, none missing "
        + "at the drain deadline (`--drain-timeout-s` after the last due time).");
    line("- **Durability.** PostgreSQL server defaults (synchronous_commit on, fsync on) for all systems and pgbench.");
    line("");
  }

  private void pgbench() {
    if (r.pgbench == null) {
      return;
    }
    line("## The ceiling: pgbench on the same PostgreSQL");
    line("");
    line("| script | result |");
    line("|---|---|");
    line("| single-row `UPDATE pgb_rows SET v = v + 1 WHERE id = random(1, 100000)` | **" + Report.fmt(r.pgbench.updateTps(), 0)
        + " tps** |");
    line("| `INSERT … SELECT generate_series(1, 1000)` into a task-shaped table (bigserial PK, (trigger_time, status) index, jsonb) | **"
        + Report.fmt(r.pgbench.insertRowsPerSecond(), 0) + " rows/s** |");
    line("");
    line("Commands (" + r.pgbench.version() + "):");
    line("");
    r.pgbench.commands().forEach(c -> line("    " + c));
    line("");
    line("A scheduler's claim or completion of one task is at least one such single-row write unless it batches, "
        + "so the update figure is what a one-row-per-task design can approach; batch ingest can approach the insert figure.");
    line("");
  }

  private void ingest() {
    if (r.ingest.isEmpty()) {
      return;
    }
    line("## Ingest — " + r.ingest.values().iterator().next().accepted() + " one-shot tasks, 4 client threads, chunks of 1000");
    line("");
    table(List.of(
        row("tasks/s", s -> r.ingest.containsKey(s) ? Report.fmt(r.ingest.get(s).perSecond(), 0) : "—"),
        row("wall time", s -> r.ingest.containsKey(s) ? r.ingest.get(s).ms() + " ms" : "—"),
        row("rejected", s -> r.ingest.containsKey(s) ? Long.toString(r.ingest.get(s).rejected()) : "—"),
        row("% of pgbench insert rows/s", s -> r.ingest.containsKey(s) && r.pgbench != null
            ? Report.fmt(100 * r.ingest.get(s).perSecond() / r.pgbench.insertRowsPerSecond(), 1) + " %" : "—")),
        ratios(s -> r.ingest.containsKey(s) ? r.ingest.get(s).perSecond() : Double.NaN, true, "ingest tasks/s"));
    line("ax goes through HTTP + JSON + HMAC signing per request; the peers insert from inside their own JVM.");
    line("");
  }

  private void burst() {
    if (r.burst.isEmpty()) {
      return;
    }
    line("## Burst — " + n(r.burst) + " tasks due at the same instant");
    line("");
    List<String[]> rows = new ArrayList<>();
    rows.add(row("drain time (last execution − due)", s -> has(r.burst, s) ? r.burst.get(s).drainMs() + " ms" : "—"));
    rows.add(row("executions/s (N / drain)", s -> has(r.burst, s) ? rate(execPerSecond(r.burst.get(s))) : "—"));
    rows.add(row("first execution after due", s -> has(r.burst, s)
        ? (r.burst.get(s).outcome().firstArrivalMs() - r.burst.get(s).schedule().firstDueMs()) + " ms" : "—"));
    rows.addAll(latenessRows(r.burst));
    rows.add(row("% of pgbench single-row UPDATE tps", s -> has(r.burst, s) && r.pgbench != null
        && !Double.isNaN(execPerSecond(r.burst.get(s)))
        ? Report.fmt(100 * execPerSecond(r.burst.get(s)) / r.pgbench.updateTps(), 1) + " %" : "—"));
    rows.add(row("scheduler CPU (s)", s -> has(r.burst, s) ? cpu(r.burst.get(s)) : "—"));
    table(rows, ratios(s -> has(r.burst, s) ? execPerSecond(r.burst.get(s)) : Double.NaN, true, "executions/s")
        + "\n" + ratios(s -> has(r.burst, s) ? p99(r.burst.get(s)) : Double.NaN, false, "lateness p99"));
    line("![burst lateness](lateness-burst.png)");
    line("");
    line("![throughput](throughput.png)");
    line("");
  }

  private void spread() {
    if (r.spread.isEmpty()) {
      return;
    }
    line("## Spread — " + n(r.spread) + " tasks due uniformly over " + window(r.spread) + " s");
    line("");
    List<String[]> rows = new ArrayList<>(latenessRows(r.spread));
    rows.add(row("scheduler CPU (s)", s -> has(r.spread, s) ? cpu(r.spread.get(s)) : "—"));
    table(rows, ratios(s -> has(r.spread, s) ? p99(r.spread.get(s)) : Double.NaN, false, "lateness p99"));
    line("![spread lateness](lateness-spread.png)");
    line("");
  }

  private void dbCost() {
    Map<String, Map<String, DbCost.Figures>> costs = dbCosts();
    if (costs.isEmpty()) {
      return;
    }
    line("## Database cost per task — WAL and PostgreSQL CPU");
    line("");
    line("How measured: **WAL** = the records the measured database wrote (and records of no database, such as "
        + "checkpoints), read as they are written with `pg_waldump --follow` from `pg_current_wal_lsn()` at the start "
        + "to `pg_current_wal_lsn()` at the end — so other sessions on this PostgreSQL do not count; a cell that says "
        + "\"of the cluster\" is `pg_wal_lsn_diff(end, start)`, everything the cluster wrote, because the WAL could not "
        + "be read (or `--cluster-wal`). **PostgreSQL CPU** = user + system CPU (/proc, 10 ms ticks) of the backends "
        + "connected to the measured database and of PostgreSQL's background processes, sampled with "
        + "`pg_stat_activity` every second; other databases' sessions are not counted. Both ÷ tasks. Burst and "
        + "spread: from the start of ingest to the end of the grace period after the last execution — each task's "
        + "insert, claim, execution and completion writes, and what the scheduler does while idle during the lead — "
        + "÷ tasks executed. Ingest: from the first call to the last answer, ÷ tasks stored (due in a day). After a "
        + "checkpoint the first change to each page logs the whole 8 kB page, and anyone's CREATE or DROP DATABASE "
        + "forces one, so a cell names the checkpoints that began in its interval: such a cell reads high. Cells: per "
        + "task (whole interval).");
    line("");
    List<String[]> rows = new ArrayList<>();
    costs.forEach((w, bySystem) -> {
      rows.add(row(w + ": WAL per task", s -> bySystem.containsKey(s) ? bySystem.get(s).wal() : "—"));
      rows.add(row(w + ": PostgreSQL CPU per task", s -> bySystem.containsKey(s) ? bySystem.get(s).cpu() : "—"));
    });
    StringBuilder footer = new StringBuilder();
    for (String w : List.of("burst", "spread")) {
      Results.Phase ax = (w.equals("burst") ? r.burst : r.spread).get("ax");
      if (ax != null) {
        footer.append(footer.length() == 0 ? "" : "\n").append("- ax, ").append(w).append(" (the performance issue's "
            + "targets per executed task): ").append(ax.db().verdict()).append('.');
      }
    }
    table(rows, footer.toString());
    line("![WAL bytes per task](db-wal.png)");
    line("");
    line("![PostgreSQL CPU per task](db-cpu.png)");
    line("");
  }

  private void recurring() {
    if (r.recurring.isEmpty()) {
      return;
    }
    Results.Recurring any = r.recurring.values().iterator().next();
    line("## Recurring — " + any.plan().describe());
    line("");
    line("Each system gets the same schedules through its own API (ax: `POST /openapi/v1/schedules`; db-scheduler: "
        + "instances of one `recurringWithPersistentSchedule` task; Quartz: one trigger per schedule; settings below), "
        + "the first due on a whole second after the same warm-up burst and, unless `--recurring-warmup-minutes 0`, "
        + "a recurring warm-up with the same schedules (its cold-JIT figures are in the notes at the top). "
        + "Every execution names its schedule and the due time it ran for (ax: the callback's `trigger_time`; "
        + "db-scheduler: the execution's `executionTime`; Quartz: `getScheduledFireTime()`), and is judged against "
        + "the due times the definition gives: **missed** = schedules × occurrences − distinct (schedule, due time) "
        + "received by the end of the drain; **doubled** = a (schedule, due time) that ran again; **early** = ran "
        + "before its due time; **off grid** = ran for a time the definition does not have. Lateness = where the "
        + "work lands − the due time (ax: at the HTTP receiver; peers: in the no-op body). CPU = the scheduler "
        + "process alone (ax's server; a peer's JVM) from the start of creation to the end of the drain, ÷ "
        + "occurrences received.");
    line("");
    Map<String, Results.Recurring> rc = r.recurring;
    List<String[]> rows = new ArrayList<>();
    for (String pct : PCT) {
      rows.add(row("lateness " + pct, s -> {
        if (!rc.containsKey(s) || rc.get(s).outcome().received() == 0) {
          return "—";
        }
        Histogram h = rc.get(s).outcome().lateness();
        long v = pct.equals("max") ? h.getMaxValue() : h.getValueAtPercentile(Double.parseDouble(pct.substring(1)));
        return pct.equals("p99") ? "**" + v + " ms**" : v + " ms";
      }));
    }
    rows.add(row("lateness p99 by minute (ms)", s -> {
      if (!rc.containsKey(s)) {
        return "—";
      }
      StringBuilder sb = new StringBuilder();
      rc.get(s).outcome().p99ByMinute().forEach((m, v) -> sb.append(sb.length() == 0 ? "" : " · ").append(v));
      return sb.toString();
    }));
    rows.add(row("received / expected", s -> rc.containsKey(s) ? rc.get(s).outcome().received() + " / "
        + rc.get(s).outcome().expected() : "—"));
    rows.add(row("missed / doubled / early / off grid", s -> {
      if (!rc.containsKey(s)) {
        return "—";
      }
      RecurringOutcome o = rc.get(s).outcome();
      return bold(o.missed()) + " / " + bold(o.doubled()) + " / " + bold(o.early())
          + (o.early() > 0 ? " (by ≤ " + o.maxEarlyMs() + " ms)" : "") + " / " + bold(o.offGrid());
    }));
    rows.add(row("scheduler CPU per occurrence", s -> rc.containsKey(s) && !Double.isNaN(rc.get(s).cpuPerOccurrenceUs())
        ? Report.fmt(rc.get(s).cpuPerOccurrenceUs(), 0) + " µs (" + Report.fmt(rc.get(s).cpuSeconds(), 1) + " s)" : "—"));
    rows.add(row("schedules created in", s -> rc.containsKey(s) ? rc.get(s).created().ms() + " ms" : "—"));
    rows.add(row("load average at start / end", s -> rc.containsKey(s) ? rc.get(s).loadStart() + " / "
        + rc.get(s).loadEnd() : "—"));
    table(rows, ratios(s -> rc.containsKey(s) && rc.get(s).outcome().received() > 0 ? recP99(rc.get(s)) : Double.NaN,
        false, "lateness p99") + "\n" + ratios(s -> rc.containsKey(s) ? rc.get(s).cpuPerOccurrenceUs() : Double.NaN,
        false, "CPU per occurrence"));
    for (Results.Recurring p : rc.values()) {
      if (!p.outcome().correct()) {
        p.outcome().samples().stream().limit(5).forEach(x -> line("- " + p.system() + ": " + x));
      }
    }
    line("");
    line("![recurring lateness](lateness-recurring.png)");
    line("");
  }

  private void flatness() {
    if (r.flatness.isEmpty()) {
      return;
    }
    line("## Flatness — the spread again over a stored backlog of far-future tasks");
    line("");
    line("The backlog is inserted with SQL (`INSERT … SELECT generate_series`) into each system's own tables, due in "
        + "2–3 days; it grows on one database per system. \"0\" is the spread workload above (its own database).");
    line("");
    java.util.TreeSet<Long> sizes = new java.util.TreeSet<>();
    r.flatness.values().forEach(m -> sizes.addAll(m.keySet()));
    StringBuilder h = new StringBuilder("| stored | ");
    StringBuilder sep = new StringBuilder("|---|");
    for (String s : systems) {
      h.append(s).append(" p50 / p99 / max | ");
      sep.append("---|");
    }
    line(h.toString().trim());
    line(sep.toString());
    List<Long> all = new ArrayList<>();
    all.add(0L);
    all.addAll(sizes);
    for (long size : all) {
      StringBuilder row = new StringBuilder("| " + String.format("%,d", size) + " | ");
      for (String s : systems) {
        Results.Phase p = size == 0 ? r.spread.get(s) : r.flatness.getOrDefault(s, new java.util.TreeMap<>()).get(size);
        if (p == null) {
          row.append("not measured | ");
        } else {
          Histogram l = p.outcome().lateness();
          Long storeMs = size == 0 ? null : r.storeMs.get(s).get(size);
          row.append(l.getValueAtPercentile(50)).append(" / **").append(l.getValueAtPercentile(99)).append("** / ")
              .append(l.getMaxValue()).append(" ms").append(p.outcome().correct() ? "" : " ⚠")
              .append(storeMs == null ? "" : " (insert " + Report.fmt(storeMs / 1000.0, 0) + " s)").append(" | ");
        }
      }
      line(row.toString().trim());
    }
    line("");
    for (String s : systems) {
      Results.Phase base = r.spread.get(s);
      java.util.TreeMap<Long, Results.Phase> f = r.flatness.get(s);
      if (base == null || f == null || f.isEmpty()) {
        continue;
      }
      long worst = f.values().stream().mapToLong(p -> (long) p99(p)).max().orElse(0);
      long b = (long) p99(base);
      line("- " + s + ": p99 " + b + " ms with no backlog, worst " + worst + " ms with up to "
          + String.format("%,d", f.lastKey()) + " stored → " + (worst <= Math.max(b * 1.5, b + 20)
          ? "flat (within 1.5× or +20 ms)" : "**grows** (" + Report.fmt(worst / (double) Math.max(1, b), 1) + "×)"));
    }
    line("");
  }

  private void submit() {
    if (r.submit.isEmpty()) {
      return;
    }
    line("## Submit latency — ax only, signed single `POST /openapi/v1/tasks`, open loop");
    line("");
    line("Latency from each request's scheduled send time (no coordinated omission); details per rate in report.md. "
        + "The peers have no network API: their scheduling call is an in-process JDBC insert, so there is nothing to compare. "
        + "*Inside ax*: the same requests (from the end of the warm-up) in ax's `ax_api_request_latency_seconds` "
        + "(headers to response end), as the upper bound of the bucket each quantile falls in; the rest of the "
        + "latency is this client, the kernel and waiting for a core.");
    line("");
    line("| rate | p50 | p95 | p99 | max | inside ax: p50 / p95 / p99 | answered/s | errors | kept up |");
    line("|---|---|---|---|---|---|---|---|---|");
    r.submit.forEach((rate, f) -> {
      Histogram h = f.latencyMs();
      line("| " + Report.fmt(rate, 0) + " req/s | " + h.getValueAtPercentile(50) + " ms | " + h.getValueAtPercentile(95)
          + " ms | " + h.getValueAtPercentile(99) + " ms | " + h.getMaxValue() + " ms | " + f.inAx() + " | "
          + Report.fmt(f.okPerSecond(), 0)
          + " | " + f.errors() + " | " + (f.keptUp() ? "yes" : "**no**") + " |");
    });
    line("");
  }

  private void memory() {
    Bench.MemoryFigures f = r.memory;
    if (f == null) {
      return;
    }
    line("## Memory — ax only, 1 M far-future tasks stored + 100 k in the near window (`-Xmx256m`)");
    line("");
    line("| | idle | loaded |");
    line("|---|---|---|");
    line("| heap used after GC | " + Report.mb(f.idleHeapMb()) + " | " + Report.mb(f.heapMb()) + " |");
    line("| RSS | " + Report.mb(f.idleRssMb()) + " | " + Report.mb(f.rssMb()) + " |");
    line("| tasks in memory | 0 | " + f.depth() + " |");
    line("| ≈ heap per in-memory task | | " + (Double.isNaN(f.bytesPerTask()) ? "n/a" : Report.fmt(f.bytesPerTask(), 0)
        + " bytes") + " |");
    line("");
  }

  private void correctness() {
    line("## Correctness — every phase, warm-ups included");
    line("");
    line("| system | workload | phase | expected | executed | missing | duplicates | early (earliest by) | ingest rejected |");
    line("|---|---|---|---|---|---|---|---|---|");
    for (Results.Phase p : r.phases) {
      Outcome o = p.outcome();
      line("| " + p.system() + " | " + p.workload() + " | " + p.phase() + " | " + o.expected() + " | " + o.executed()
          + " | " + bold(o.missing()) + " | " + bold(o.duplicates()) + " | " + bold(o.early())
          + (o.early() > 0 ? " (" + o.maxEarlyMs() + " ms)" : "") + " | "
          + bold(p.ingested().rejected()) + " |");
    }
    for (Results.Recurring p : r.recurring.values()) {
      RecurringOutcome o = p.outcome();
      line("| " + p.system() + " | recurring | " + p.plan().n() + " schedules × " + p.plan().slots() + " (missed in "
          + "\"missing\", doubled in \"duplicates\", " + o.offGrid() + " off grid) | " + o.expected() + " | "
          + o.received() + " | " + bold(o.missed()) + " | " + bold(o.doubled()) + " | " + bold(o.early())
          + (o.early() > 0 ? " (" + o.maxEarlyMs() + " ms)" : "") + " | " + bold(p.created().rejected()) + " |");
    }
    line("");
  }

  private void settings() {
    line("## Settings of every system");
    line("");
    for (Map.Entry<String, Map<String, String>> e : r.settings.entrySet()) {
      line("### " + e.getKey());
      line("");
      line("| setting | value |");
      line("|---|---|");
      e.getValue().forEach((k, v) -> line("| " + k + " | " + v.replace("|", "\\|") + " |"));
      line("");
    }
  }

  // ------------------------------------------------------------------------------------------------

  private List<String[]> latenessRows(Map<String, Results.Phase> ph) {
    List<String[]> rows = new ArrayList<>();
    for (String pct : PCT) {
      rows.add(row("lateness " + pct, s -> {
        if (!has(ph, s)) {
          return "—";
        }
        Histogram h = ph.get(s).outcome().lateness();
        long v = pct.equals("max") ? h.getMaxValue() : h.getValueAtPercentile(Double.parseDouble(pct.substring(1)));
        return (pct.equals("p99") ? "**" + v + " ms**" : v + " ms");
      }));
    }
    rows.add(row("executed / missing / duplicates / early", s -> {
      if (!ph.containsKey(s)) {
        return "—";
      }
      Outcome o = ph.get(s).outcome();
      return o.executed() + " / " + o.missing() + " / " + o.duplicates() + " / " + o.early();
    }));
    return rows;
  }

  private static String cpu(Results.Phase p) {
    return Double.isNaN(p.cpuSeconds()) ? "n/a (process gone)" : Report.fmt(p.cpuSeconds(), 1);
  }

  private static boolean has(Map<String, Results.Phase> ph, String s) {
    return ph.containsKey(s) && ph.get(s).outcome().executed() > 0;
  }

  private static double p99(Results.Phase p) {
    return p.outcome().lateness().getValueAtPercentile(99);
  }

  private String[] row(String name, Function<String, String> cell) {
    String[] row = new String[systems.size() + 1];
    row[0] = name;
    for (int i = 0; i < systems.size(); i++) {
      row[i + 1] = cell.apply(systems.get(i));
    }
    return row;
  }

  /**
   * For each of ax's forms measured: "ax ÷ peer" (higher is better) or "peer ÷ ax" (lower is better) for every
   * peer, one line each.
   */
  private String ratios(ToDoubleFunction<String> value, boolean higherIsBetter, String what) {
    List<String> lines = new ArrayList<>();
    for (String ours : OURS) {
      double ax = value.applyAsDouble(ours);
      List<String> parts = new ArrayList<>();
      for (String s : systems) {
        double v = value.applyAsDouble(s);
        if (Compare.ours(s) || Double.isNaN(ax) || Double.isNaN(v)) {
          continue;
        }
        double ratio = higherIsBetter ? ax / Math.max(1e-9, v) : v / Math.max(1, ax);
        parts.add("vs " + s + " **" + ratio(ratio) + "×**");
      }
      if (!parts.isEmpty()) {
        lines.add(ours + " " + what + (higherIsBetter ? " ÷ peer's"
            : ": peer's ÷ " + ours + "'s (how many times lower " + ours + "'s is)") + ": " + String.join(", ", parts)
            + ".");
      }
    }
    return String.join("\n", lines);
  }

  private void table(List<String[]> rows, String footer) {
    StringBuilder h = new StringBuilder("| |");
    StringBuilder sep = new StringBuilder("|---|");
    for (String s : systems) {
      h.append(' ').append(s).append(" |");
      sep.append("---|");
    }
    line(h.toString());
    line(sep.toString());
    for (String[] row : rows) {
      line("| " + String.join(" | ", row) + " |");
    }
    line("");
    if (!footer.isBlank()) {
      line(footer);
      line("");
    }
  }

  /** One decimal, two below 1 (so 0.03× does not read as 0.0×). */
  private static String ratio(double r) {
    return Report.fmt(r, r < 1 ? 2 : 1);
  }

  /** A rate, or "n/a" when the phase did not finish (tasks missing at the deadline). */
  private static String rate(double v) {
    return Double.isNaN(v) ? "n/a (not drained)" : Report.fmt(v, 0);
  }

  private static String bold(long v) {
    return v == 0 ? "0" : "**" + v + "**";
  }

  private static String ms(double v) {
    return Report.fmt(v, 0) + " ms";
  }

  private void line(String s) {
    md.append(s).append('\n');
  }
}
