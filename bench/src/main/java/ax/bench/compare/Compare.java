package ax.bench.compare;

import ax.bench.Bench;
import ax.bench.DbCost;
import ax.bench.Harness;
import ax.bench.Options;
import ax.bench.Report;
import ax.bench.peers.Outcome;
import ax.bench.peers.RecurringOutcome;
import ax.bench.peers.RecurringPlan;
import ax.bench.peers.Schedule;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

/**
 * The {@code compare} scenario: ax, db-scheduler and Quartz side by side on the same PostgreSQL in the same
 * run, plus pgbench's ceiling for that PostgreSQL. Each workload runs for every system in turn (so
 * background load spreads over all of them), each system on a fresh database and a fresh process.
 * Writes results/&lt;date&gt;/compare.md and PNG charts (see bench/README.md).
 */
public final class Compare {
  public static final List<String> SYSTEMS = List.of("ax", AxExecutorsContender.NAME, "db-scheduler", "quartz");
  public static final List<String> WORKLOADS =
      List.of("pgbench", "ingest", "burst", "spread", "recurring", "flatness", "submit", "memory");
  private static final long DAY_MS = 86_400_000L;

  private final Options o;
  private final Path benchDir;
  private final Path resultsDir;
  private final List<String> systems;
  private final int n;
  private final int threads;
  private final int chunk;
  private final long graceMs;
  final Results results = new Results();

  public Compare(Options o, Path benchDir, Path resultsDir) {
    this.o = o;
    this.benchDir = benchDir;
    this.resultsDir = resultsDir;
    this.systems = csv(o.string("systems", String.join(",", SYSTEMS)));
    this.n = o.intValue("n", 20_000);
    this.threads = o.intValue("threads", 4);
    this.chunk = o.intValue("chunk", 1000);
    this.graceMs = o.longValue("grace-s", 3) * 1000;
    for (String s : systems) {
      if (!SYSTEMS.contains(s)) {
        throw new IllegalArgumentException("--systems: unknown system '" + s + "' (" + SYSTEMS + ")");
      }
    }
  }

  /** Runs the comparison and writes its report; the exit code is 1 if any check failed. */
  public static int main(Options o, Path benchDir, Path resultsDir) {
    long t0 = System.currentTimeMillis();
    String pg = o.string("pg", "postgresql://postgres@127.0.0.1:5432");
    CompareReport.Machine machine = CompareReport.Machine.describe(pg);
    Compare c;
    try {
      c = new Compare(o, benchDir, resultsDir);
      c.run();
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      return 2;
    } catch (Exception e) {
      e.printStackTrace();
      return 1;
    }
    String wall = Report.fmt((System.currentTimeMillis() - t0) / 60_000.0, 1) + " min";
    String load;
    try {
      load = java.nio.file.Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (java.io.IOException e) {
      load = "?";
    }
    try {
      Path dir = resultsDir.resolve(java.time.LocalDate.now(java.time.ZoneOffset.UTC).toString());
      Path file = CompareReport.write(dir, c.results, c.systems, machine,
          ("bench/run.sh compare " + o.commandLine()).trim(), wall, load);
      System.out.println("[compare] wrote " + file + " (" + wall + ")");
    } catch (java.io.IOException e) {
      e.printStackTrace();
      return 1;
    }
    c.results.failures.forEach(f -> System.out.println("[compare] FAIL: " + f));
    return c.results.failures.isEmpty() ? 0 : 1;
  }

  static List<String> csv(String s) {
    return Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
  }

  public Results run() throws Exception {
    List<String> workloads = csv(o.string("workloads", String.join(",", WORKLOADS)));
    for (String w : workloads) {
      if (!WORKLOADS.contains(w)) {
        throw new IllegalArgumentException("--workloads: unknown workload '" + w + "' (" + WORKLOADS + ")");
      }
    }
    for (String w : workloads) {
      System.out.println("[compare] ===== " + w + " =====");
      switch (w) {
        case "pgbench" -> results.pgbench = Pgbench.run(o.string("pg", "postgresql://postgres@127.0.0.1:5432"),
            o.intValue("pgbench-clients", 4), o.intValue("pgbench-jobs", 2), o.intValue("pgbench-s", 15),
            resultsDir.resolve("pgbench"));
        case "ingest" -> forEachSystem(w, systems, this::ingest);
        case "burst" -> forEachSystem(w, systems, this::burst);
        case "spread" -> forEachSystem(w, systems, this::spread);
        case "recurring" -> forEachSystem(w, systems, FullContender.class, this::recurring);
        case "flatness" -> {
          List<String> flat = csv(o.string("flat-systems", String.join(",", SYSTEMS)));
          systems.stream().filter(s -> !flat.contains(s)).forEach(s ->
              results.notes.add("flatness: " + s + " not measured (not in --flat-systems)"));
          forEachSystem(w, systems.stream().filter(flat::contains).toList(), FullContender.class, this::flatness);
        }
        case "submit" -> submit();
        case "memory" -> memory();
        default -> throw new IllegalStateException(w);
      }
    }
    return results;
  }

  interface Workload<C extends Contender> {
    void run(C c) throws Exception;
  }

  private void forEachSystem(String label, List<String> which, Workload<Contender> w) {
    forEachSystem(label, which, Contender.class, w);
  }

  /**
   * Every system in turn on a fresh database; a system that fails is reported and the run goes on. A
   * workload that needs more than {@link Contender} ({@code needs}) skips, with a note, the systems that
   * cannot run it.
   */
  private <C extends Contender> void forEachSystem(String label, List<String> which, Class<C> needs, Workload<C> w) {
    for (String system : which) {
      if (system.equals(AxExecutorsContender.NAME) && !AxExecutorsContender.WORKLOADS.contains(label)) {
        results.notes.add(label + ": " + system + " not measured (it runs " + AxExecutorsContender.WORKLOADS + " only)");
        continue;
      }
      try (Contender c = start(system, label)) {
        results.settings.putIfAbsent(system, c.settings());
        if (!needs.isInstance(c)) {
          throw new IllegalStateException(system + " cannot run " + label);
        }
        w.run(needs.cast(c));
        if (!c.alive()) {
          results.failures.add(system + " process died during " + label);
        }
      } catch (Exception e) {
        e.printStackTrace();
        results.failures.add(system + ": " + label + " aborted: " + e.getMessage());
      }
    }
  }

  private Contender start(String system, String label) throws Exception {
    System.out.println("[compare] starting " + system + " on a fresh database (" + label + ")");
    return switch (system) {
      case "ax" -> AxContender.start(label, o, benchDir);
      case AxExecutorsContender.NAME -> AxExecutorsContender.start(label, o, benchDir);
      default -> PeerContender.start(system, label, o, resultsDir);
    };
  }

  /** ax in either form (HTTP targets, or processor tasks through its executors) rather than a peer. */
  static boolean ours(String system) {
    return system.equals("ax") || system.equals(AxExecutorsContender.NAME);
  }

  // ------------------------------------------------------------------------------------------------
  // workloads

  /**
   * N tasks due in a day (so none fire), scheduled as fast as the API allows from the client threads; what
   * PostgreSQL paid from the first call to the last answer, per task stored.
   */
  private void ingest(Contender c) throws Exception {
    // Warm first, as the other workloads are: a fresh JVM spends the first seconds of an ingest compiling
    // (ax measured 17 810 tasks/s cold against 24 712 after a warm-up, bench/README 2026-12-04). Due two
    // hours after the measured tasks, so no warm-up task is a fingerprint duplicate of a measured one.
    int warmN = o.intValue("ingest-warmup-n", Math.min(50_000, n));
    if (warmN > 0) {
      Contender.Ingested w = c.ingest("ingest-warm-up",
          new Schedule(warmN, System.currentTimeMillis() + DAY_MS + 7_200_000L, 3_600_000L), threads, chunk);
      String line = c.name() + " ingest warm-up (not measured): " + w.accepted() + " in " + w.ms() + " ms = "
          + Math.round(w.perSecond()) + " tasks/s";
      System.out.println("[compare] " + line);
      results.notes.add(line);
    }
    Schedule s = new Schedule(n, System.currentTimeMillis() + DAY_MS, 3_600_000L);
    Contender.Ingested ig;
    try (DbCost cost = DbCost.start(c.connectDb(), o)) {
      ig = c.ingest("ingest", s, threads, chunk);
      results.ingestDb.put(c.name(), cost.stop(ig.accepted()));
    }
    System.out.println("[compare] " + c.name() + " ingest: " + ig.accepted() + " in " + ig.ms() + " ms = "
        + Math.round(ig.perSecond()) + " tasks/s; PostgreSQL " + results.ingestDb.get(c.name()).describe());
    results.ingest.put(c.name(), ig);
    if (ig.rejected() > 0) {
      results.failures.add(c.name() + " ingest: " + ig.rejected() + " rejected, e.g. " + ig.errorSample());
    }
  }

  private void burst(Contender c) throws Exception {
    warmUp(c);
    Schedule s = new Schedule(n, System.currentTimeMillis() + leadMs(c.name(), n), 0);
    results.burst.put(c.name(), phase(c, "burst", "burst", s));
  }

  private void spread(Contender c) throws Exception {
    warmUp(c);
    results.spread.put(c.name(), phase(c, "spread", "spread", spreadSchedule(c.name())));
  }

  /**
   * {@code --recurring-schedules} (1000) schedules firing every {@code --recurring-every-ms} (1000) for
   * {@code --recurring-minutes} (2), starts staggered evenly over the period ({@code --recurring-aligned}: all
   * at the same instant, cron's shape), after the same warm-up burst as the other phases and then a recurring
   * warm-up: the same schedules for {@code --recurring-warmup-minutes} (1; 0 for none), so that no system is
   * measured with a cold JIT on its recurring path (the burst does not run it). The warm-up's figures are
   * reported as a note: they are the cold start. The first due time of each is {@code --recurring-lead-s}
   * (20) after creation starts, on a whole second; the bench waits until every occurrence of the window ran
   * or {@code --recurring-drain-s} (30) after the last due time.
   */
  private void recurring(FullContender c) throws Exception {
    warmUp(c);
    double warmUpMinutes = o.doubleValue("recurring-warmup-minutes", 1);
    if (warmUpMinutes > 0) {
      Results.Recurring cold = recurringPhase(c, "recurring warm-up", warmUpMinutes);
      RecurringOutcome w = cold.outcome();
      results.notes.add(c.name() + " recurring warm-up (" + Report.fmt(warmUpMinutes, 1) + " min, the same "
          + "schedules, cold JIT on this path; not in the figures): lateness p50 " + w.lateness().getValueAtPercentile(50)
          + " p99 " + w.lateness().getValueAtPercentile(99) + " max " + w.lateness().getMaxValue() + " ms; received "
          + w.received() + "/" + w.expected() + ", doubled " + w.doubled() + ", early " + w.early());
    }
    results.add(recurringPhase(c, "recurring", o.doubleValue("recurring-minutes", 2)));
  }

  private Results.Recurring recurringPhase(FullContender c, String label, double minutes) throws Exception {
    int count = o.intValue("recurring-schedules", 1000);
    long period = o.longValue("recurring-every-ms", 1000);
    int slots = (int) Math.max(1, Math.round(minutes * 60_000 / period));
    long first = (System.currentTimeMillis() + o.longValue("recurring-lead-s", 20) * 1000 + 999) / 1000 * 1000;
    RecurringPlan plan = new RecurringPlan(count, first, period, slots, o.flag("recurring-aligned"));
    String phase = "recurring-" + System.currentTimeMillis() % 100_000;
    String load0 = loadavg();
    double cpu0 = c.cpuSeconds();
    Contender.Ingested created = c.scheduleRecurring(phase, plan, threads, Math.max(1, Math.min(chunk, count / threads)));
    long createdAt = System.currentTimeMillis();
    System.out.println("[compare] " + c.name() + " " + label + ": " + created.accepted() + " schedules created in "
        + created.ms() + " ms; first due in " + (first - createdAt) + " ms");
    if (createdAt > first) {
      results.notes.add(c.name() + " " + label + ": creating the schedules ended " + (createdAt - first)
          + " ms after the first due time");
    }
    long expected = created.accepted() * (long) slots;
    long deadline = plan.lastDueMs() + o.longValue("recurring-drain-s", 30) * 1000;
    long lastPrint = 0;
    long got;
    while ((got = c.occurrences(phase)) < expected && System.currentTimeMillis() < deadline && c.alive()) {
      if (System.currentTimeMillis() - lastPrint > 10_000) {
        lastPrint = System.currentTimeMillis();
        System.out.println("[compare] " + c.name() + " " + label + ": " + got + "/" + expected + " occurrences (load "
            + loadavg() + ")");
      }
      Thread.sleep(100);
    }
    Thread.sleep(graceMs);
    RecurringOutcome out = c.recurringOutcome(phase);
    Results.Recurring r = new Results.Recurring(c.name(), plan, created, out, c.cpuSeconds() - cpu0, load0, loadavg());
    System.out.println("[compare] " + c.name() + " " + label + ": received " + out.received() + "/" + out.expected()
        + ", missed " + out.missed() + ", doubled " + out.doubled() + ", early " + out.early() + ", lateness p50 "
        + out.lateness().getValueAtPercentile(50) + " p99 " + out.lateness().getValueAtPercentile(99) + " max "
        + out.lateness().getMaxValue() + " ms, CPU " + Report.fmt(r.cpuPerOccurrenceUs(), 0) + " µs/occurrence");
    return r;
  }

  static String loadavg() {
    try {
      String[] f = java.nio.file.Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (java.io.IOException e) {
      return "?";
    }
  }

  /**
   * The spread again over a stored backlog of far-future tasks (due in 2..3 days), inserted with SQL into
   * the system's own tables; the backlog grows through {@code --flat-sizes} on one database.
   * Peers get sizes up to {@code --flat-peer-max} (their backlog inserts take much longer); systems not in
   * {@code --flat-systems} (default all) are skipped.
   */
  private void flatness(FullContender c) throws Exception {
    long max = c.name().equals("ax") ? Long.MAX_VALUE : o.longValue("flat-peer-max", 1_000_000);
    TreeMap<Long, Results.Phase> byStored = new TreeMap<>();
    TreeMap<Long, Long> store = new TreeMap<>();
    results.flatness.put(c.name(), byStored);
    results.storeMs.put(c.name(), store);
    long stored = 0;
    boolean warm = false;
    for (String size : csv(o.string("flat-sizes", "1000000,10000000"))) {
      long target = Long.parseLong(size.replace("_", ""));
      if (target > max) {
        results.notes.add("flatness: " + c.name() + " not measured with " + target + " stored tasks (--flat-peer-max "
            + max + ")");
        continue;
      }
      System.out.println("[compare] " + c.name() + ": storing " + (target - stored) + " more far-future tasks (SQL)");
      long now = System.currentTimeMillis();
      store.put(target, c.storeFuture(stored, target - stored, now + 2 * DAY_MS, DAY_MS));
      stored = target;
      if (!warm) {
        warmUp(c);
        warm = true;
      }
      byStored.put(stored, phase(c, "flatness", "flat-" + stored, spreadSchedule(c.name())));
    }
  }

  /** Open-loop signed single submissions at fixed rates, ax only (the peers have no network API). */
  private void submit() throws Exception {
    if (!systems.contains("ax")) {
      return;
    }
    Options so = o.with("seconds", o.string("submit-seconds", "20")).with("warmup-s", o.string("submit-warmup-s", "15"));
    try (AxContender ax = AxContender.start("submit", so, benchDir)) {
      Harness h = ax.harness();
      for (String rate : csv(o.string("submit-rates", "200,500,1000"))) {
        Report r = new Report("compare submit " + rate + "/s");
        results.submit.put(Double.parseDouble(rate), Bench.submit(h, r, so.with("rate", rate)));
        r.print();
        r.append(resultsDir);
        if (r.failed()) {
          results.failures.add("submit at " + rate + " req/s failed: see report.md");
        }
      }
    }
  }

  /** The existing `memory` scenario (1 M stored + 100 k near, -Xmx256m), ax only. */
  private void memory() throws Exception {
    if (!systems.contains("ax")) {
      return;
    }
    Options mo = o.with("heap", o.string("memory-heap", "256m"));
    try (AxContender ax = AxContender.start("memory", mo, benchDir)) {
      results.memory = Bench.memory(ax.harness());
      Report r = ax.harness().report;
      r.print();
      r.append(resultsDir);
      if (r.failed()) {
        results.failures.add("memory failed: see report.md");
      }
    }
  }

  // ------------------------------------------------------------------------------------------------
  // phases

  /** A spread of N over {@code --window-s} (default 60 s), starting once the system can have ingested it. */
  private Schedule spreadSchedule(String system) {
    return new Schedule(n, System.currentTimeMillis() + leadMs(system, n), o.longValue("window-s", 60) * 1000);
  }

  /**
   * Long enough for this system to ingest {@code count} tasks before the first is due: 1.5 × what its ingest
   * workload measured, plus 3 s, at least {@code --min-lead-s} (default 10). Without an ingest figure:
   * {@code --lead-s} (default 30). Lateness is then the scheduler's, not the submitter's.
   */
  long leadMs(String system, int count) {
    if (o.has("lead-s")) {
      return o.longValue("lead-s", 30) * 1000;
    }
    Contender.Ingested ig = results.ingest.get(system);
    long lead = ig == null ? 30_000 : (long) (1.5 * count * 1000 / Math.max(1, ig.perSecond())) + 3_000;
    return Math.max(o.longValue("min-lead-s", 10) * 1000, lead);
  }

  /**
   * A cold JVM spends its first burst compiling (bench/README.md "Cold JVMs"); a production scheduler is warm.
   * Every system gets the same {@code --warmup-n} burst (default 5 000; 0 = none) before it is measured.
   */
  private void warmUp(Contender c) throws Exception {
    int wn = o.intValue("warmup-n", 5_000);
    if (wn > 0) {
      phase(c, "warm-up", "warm-up-" + System.currentTimeMillis() % 100_000,
          new Schedule(wn, System.currentTimeMillis() + leadMs(c.name(), wn), 0));
    }
  }

  /**
   * Schedules a phase, waits until all executed or the drain deadline, and records the outcome, with what
   * PostgreSQL paid from the start of ingest to the end of the grace period (so the last tasks' completion writes
   * are in) per task executed.
   */
  private Results.Phase phase(Contender c, String workload, String phase, Schedule s) throws Exception {
    try (DbCost cost = DbCost.start(c.connectDb(), o)) {
      return phase(c, workload, phase, s, cost);
    }
  }

  private Results.Phase phase(Contender c, String workload, String phase, Schedule s, DbCost cost) throws Exception {
    double cpu0 = c.cpuSeconds();
    long t0 = System.currentTimeMillis();
    Contender.Ingested ig = c.ingest(phase, s, threads, chunk);
    long ingestEnd = t0 + ig.ms();
    System.out.println("[compare] " + c.name() + " " + phase + ": " + ig.accepted() + " scheduled in " + ig.ms()
        + " ms; first due in " + (s.firstDueMs() - ingestEnd) + " ms");
    if (ingestEnd > s.firstDueMs()) {
      results.notes.add(c.name() + " " + phase + ": ingest finished " + (ingestEnd - s.firstDueMs())
          + " ms after the first task was due (its lateness includes that)");
    }
    long deadline = s.lastDueMs() + o.longValue("drain-timeout-s", 180) * 1000;
    long lastPrint = 0;
    long done;
    while ((done = c.executed(phase)) < ig.accepted() && System.currentTimeMillis() < deadline && c.alive()) {
      if (System.currentTimeMillis() - lastPrint > 5_000) {
        lastPrint = System.currentTimeMillis();
        System.out.println("[compare] " + c.name() + " " + phase + ": executed " + done + "/" + ig.accepted());
      }
      Thread.sleep(100);
    }
    Thread.sleep(graceMs); // late duplicates
    Outcome out = c.outcome(phase);
    Results.Phase p = new Results.Phase(c.name(), workload, phase, s, ig, out, c.cpuSeconds() - cpu0,
        cost.stop(out.executed()));
    results.add(p);
    System.out.println("[compare] " + c.name() + " " + phase + ": executed " + out.executed() + "/" + out.expected()
        + ", duplicates " + out.duplicates() + ", early " + out.early() + ", lateness p50 "
        + out.lateness().getValueAtPercentile(50) + " p99 " + out.lateness().getValueAtPercentile(99) + " max "
        + out.lateness().getMaxValue() + " ms; PostgreSQL " + p.db().describe());
    return p;
  }
}
