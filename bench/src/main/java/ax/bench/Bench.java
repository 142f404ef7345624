package ax.bench;

import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import ax.bench.compare.Compare;
import ax.bench.compare.PeerSmoke;
import ax.bench.peers.PeerMain;
import org.HdrHistogram.Histogram;

/**
 * ax-bench: measures an ax scheduler from outside. {@code java -jar ax-bench.jar <scenario> [flags]};
 * see bench/README.md. Every scenario starts its own scheduler process on a fresh database, talks to
 * it only through the signed public API (or, for {@code memory}, by filling its table directly), and
 * receives the callbacks on an in-process HTTP server.
 */
public final class Bench {
  static final Set<String> SCENARIOS = Set.of("spread", "failover", "burst", "submit", "memory", "smoke", "compare", "executors",
      "recurring", "cron-herd", "webhooks");

  /** First task id of rows the memory scenario inserts itself (far above any snowflake id ax makes). */
  public static final long STORED_ID_BASE = 8_000_000_000_000_000_000L;
  static final long NEAR_ID_BASE = 8_100_000_000_000_000_000L;

  static final String USAGE = """
      usage: java -jar bench/target/ax-bench.jar <scenario> [flags]

      scenarios
        spread   N tasks due uniformly over a window; lateness percentiles
                 --n 20000 --lead-s 45 --window-s 30 --concurrency 8 --drain-timeout-s 60
        burst    N tasks due at the same instant; drain time, executions/s, lateness
                 --n 20000 --lead-s 60 --concurrency 8 --drain-timeout-s 60
                 spread and burst first run warm-up bursts on the same scheduler (reported apart):
                 --warmup-bursts 1 --warmup-n 10000 --warmup-lead-s 40   (0 bursts = cold JVM)
        submit   open-loop POST /openapi/v1/tasks at a fixed rate; latency without coordinated omission
                 --rate 500 --seconds 30 --warmup-s 45 --delay-s 3600
        memory   `stored` far-future rows + `near` rows in the load window; heap and RSS of the node
                 --stored 1000000 --near 100000 --near-from-s 15 --near-to-s 50 --depth-timeout-s 60 [--fire]
        smoke    burst N=300 (due +8 s), then spread N=300 over 5 s (from +6 s), then 20 recurring schedules
                 every second for 5 s (from +6 s); then N tasks through
                 each peer of `compare` (db-scheduler, Quartz); fails on anything missing, duplicated or early
                 --n 300
        executors  N processor tasks due at one instant, run by executor processes over the bridge
                 (noop); drain time, executions/s, claim→ack overhead per task; each must run once
                 --n 50000 --executors 2 --buffer 256 --warmup-bursts 4 --warmup-n 50000 --bursts 3 --lead-s 15
                 --drain-timeout-s 120
                 [--executor-jfr DIR: each executor records a JFR profile to DIR/<id>.jfr; profile the
                  scheduler with --env JAVA_TOOL_OPTIONS=-XX:StartFlightRecording=filename=F,...]
        recurring  N schedules firing every second for M minutes (every_ms with starts staggered over the
                 second; --aligned: cron "* * * * * *", all due at the same instant); occurrence lateness,
                 missed, doubled, early, scheduler CPU per occurrence; then a one-shot spread at the same
                 rate on the same node for reference
                 --schedules 1000 --minutes 10 --every-ms 1000 [--aligned] --lead-s 20 --concurrency 8
                 --drain-timeout-s 30 --reference-spread-s 30 (0: none); warm-up bursts as spread/burst
        webhooks  a backlog of N webhooks (N finished tasks with a notify_url stored in one statement):
                 time from the commit to the last delivery, webhooks/s, repeats, signatures, CPU per webhook
                 --n 20000 --warmup-rounds 1 --drain-timeout-s 120
        cron-herd  N cron schedules ("0 * * * * *", max_runs 1) all due at the same minute boundary; drain
                 time, lateness, missed, doubled; then a one-shot burst of N on the same node for reference
                 --schedules 10000 --lead-s 20 --concurrency 8 --drain-timeout-s 60 --reference-burst 1 (0: none)
        failover  the first burst after a leader change: two clustered nodes, the second standing by; a warm
                 burst of N on the leader, then N more due at one instant, the leader killed (SIGKILL) before
                 it; drain times and their ratio (issue 16: ≤ 2×); missing, doubled or early fail the run
                 --n 20000 --lead-s 40 --kill-before-s 10 --warm-lead-s 60 --concurrency 8
                 --drain-timeout-s 120; warm-up bursts as burst
                 --restart: the first burst after a restart instead: one node, killed the same way and a
                 new process started at once on the same database
        compare  ax vs db-scheduler vs Quartz on the same PostgreSQL + pgbench's ceiling; writes
                 results/<date>/compare.md and PNG charts (bench/README.md "compare")
                 --n 20000 --window-s 60 --warmup-n 5000 --ingest-warmup-n min(50000, n) --threads 4
                 --chunk 1000 --drain-timeout-s 180
                 --systems ax,db-scheduler,quartz --workloads pgbench,ingest,burst,spread,flatness,submit,memory
                 --flat-sizes 1000000,10000000 --flat-peer-max 1000000 --pgbench-s 15
                 --submit-rates 200,500,1000 --submit-seconds 20 --submit-warmup-s 15

      common flags
        --notify            spread/burst: every task also has a notify_url (the bench's /notify, own port); reports the
                            webhooks: count, rate first→last arrival, signatures (the notify_url overhead run)
        --jar PATH          scheduler jar (default: ../target/ax.jar relative to bench/)
        --heap SIZE         scheduler -Xmx (default 512m; memory: 256m)
        --ax-jvm-flags "F"  JVM flags for ax's nodes, e.g. "-XX:TieredStopAtLevel=1" (default none: the README's launch)
        --env K=V           extra environment for the scheduler (repeatable; wins over the defaults)
        --pg URL            PostgreSQL server, default postgresql://postgres@127.0.0.1:5432
        --grace-s 3         after everything arrived, keep listening this long for duplicates
        --pool 32           client connection pool size
        --results DIR       where report.md and server logs go (default bench/results)
        --health-timeout-s 60   --keep-db (do not drop the database, for debugging)
      exit code: 0 pass, 1 a check failed (missing / duplicate / early / errors), 2 usage, 3 signer self-test
      """;

  private Bench() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0 || Set.of("-h", "--help", "help").contains(args[0])) {
      System.out.print(USAGE);
      System.exit(args.length == 0 ? 2 : 0);
    }
    String scenario = args[0];
    if (scenario.equals("peer")) { // hidden: a peer scheduler's JVM, started by the compare scenario
      PeerMain.main(java.util.Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    if (!SCENARIOS.contains(scenario)) {
      System.err.println("unknown scenario '" + scenario + "'\n" + USAGE);
      System.exit(2);
    }
    Options o;
    try {
      o = new Options(List.of(args).subList(1, args.length));
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage() + "\n" + USAGE);
      System.exit(2);
      return;
    }
    try {
      Signer.selfTest();
    } catch (IllegalStateException e) {
      System.err.println(e.getMessage());
      System.exit(3);
    }
    System.out.println("signer self-test against the API.md test vectors: OK");

    Path benchDir = o.has("bench-dir") ? Path.of(o.string("bench-dir", ".")).toAbsolutePath() : benchDir();
    Path resultsDir = Path.of(o.string("results", benchDir.resolve("results").toString()));
    if (scenario.equals("compare")) {
      System.exit(Compare.main(o, benchDir, resultsDir));
    }
    Report report = new Report(scenario);
    report.setup("command", ("ax-bench " + scenario + " " + o.commandLine()).trim());
    report.setup("host", Runtime.getRuntime().availableProcessors() + " cores, java "
        + System.getProperty("java.version") + ", bench pid " + ProcessHandle.current().pid() + ", bench JVM "
        + String.join(" ", java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()));
    String defaultHeap = "512m";
    if (scenario.equals("memory")) {
      defaultHeap = "256m";
      o.defaultEnv("AX_LOAD_WINDOW_MS", "60000");
    }
    ExecutorBridge bridge = ExecutorBridge.pick();
    if (scenario.equals("executors")) {
      defaultHeap = "1g";
      o = bridge.onto(o);
    }
    Failover.Cluster cluster = null;
    if (scenario.equals("failover")) {
      if (o.flag("restart")) {
        o.defaultEnv("AX_LEASE_TTL_MS", Failover.LEASE_TTL_MS); // one node: no cluster, the same lease TTL
      } else {
        cluster = Failover.Cluster.pick();
        cluster.applyTo(o);
      }
    }
    long t0 = System.currentTimeMillis();
    try (Harness h = Harness.start(scenario, o, report, benchDir, defaultHeap)) {
      switch (scenario) {
        case "spread" -> spread(h, warmUpSpread(h, o), o.intValue("n", 20_000), o.longValue("lead-s", 45) * 1000,
            o.longValue("window-s", 30) * 1000, o.intValue("concurrency", 8),
            o.longValue("drain-timeout-s", 60) * 1000, o.longValue("grace-s", 3) * 1000);
        case "burst" -> burst(h, warmUp(h, o), o.intValue("n", 20_000), o.longValue("lead-s", 60) * 1000,
            o.intValue("concurrency", 8), o.longValue("drain-timeout-s", 60) * 1000,
            o.longValue("grace-s", 3) * 1000);
        case "submit" -> submit(h, h.report, h.options);
        case "memory" -> memory(h);
        case "smoke" -> smoke(h);
        case "recurring" -> Recurring.recurring(h);
        case "cron-herd" -> Recurring.cronHerd(h);
        case "webhooks" -> new WebhookDrain(h).run(o.intValue("n", 20_000), o.intValue("warmup-rounds", 1),
            o.longValue("drain-timeout-s", 120) * 1000);
        case "executors" -> new ExecutorBurst(h, Harness.jar(o, benchDir), bridge, o.intValue("buffer", 256),
            o.has("executor-jfr") ? Path.of(o.string("executor-jfr", null)).toAbsolutePath() : null)
            .run(o.intValue("executors", 2), o.intValue("n", 50_000), o.intValue("warmup-bursts", 4),
                o.intValue("warmup-n", 50_000), o.intValue("bursts", 3), o.longValue("lead-s", 15) * 1000,
                o.longValue("drain-timeout-s", 120) * 1000);
        case "failover" -> Failover.run(h, cluster);
        default -> throw new IllegalStateException(scenario);
      }
      if (!scenario.equals("failover")) { // failover kills it on purpose and checks the standby instead
        h.checkServerAlive();
      }
    } catch (Exception e) {
      report.fail("aborted: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
      if (!(e instanceof IllegalStateException)) {
        e.printStackTrace();
      }
    }
    report.setup("wall time", Report.fmt((System.currentTimeMillis() - t0) / 1000.0, 1) + " s");
    report.print();
    Path file = report.append(resultsDir);
    System.out.println("appended to " + file);
    System.exit(report.failed() ? 1 : 0);
  }

  /** bench/ : the parent of target/ that holds this jar (or target/classes); else the working directory. */
  public static Path benchDir() {
    try {
      Path p = Path.of(Bench.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path target = Files.isDirectory(p) ? p.getParent() : p.getParent(); // target/classes or target/x.jar
      if (target != null && target.getFileName() != null && target.getFileName().toString().equals("target")
          && target.getParent() != null) {
        return target.getParent().toAbsolutePath();
      }
    } catch (URISyntaxException | RuntimeException ignored) {
      // fall through
    }
    return Path.of("").toAbsolutePath();
  }

  // ------------------------------------------------------------------------------------------------
  // warm-up

  /**
   * A scheduler runs for hours before the top of the hour comes; a fresh JVM on 2 cores spends most of
   * its first burst compiling (JFR showed ~14 s of JIT compilation inside one cold 20 000-task burst).
   * So spread and burst first run {@code --warmup-bursts} (default 1) bursts of {@code --warmup-n}
   * (default 10 000) tasks on the same scheduler, reported in their own sections as the cold figure,
   * and then measure. {@code --warmup-bursts 0} measures a cold JVM.
   * @return the section name of the measured run
   */
  static String warmUp(Harness h, Options o) throws Exception {
    int bursts = o.intValue("warmup-bursts", 1);
    for (int i = 1; i <= bursts; i++) {
      burst(h, "warm-up " + i + " of " + bursts + " (cold JVM; not the measured figure)", o.intValue("warmup-n", 10_000),
          o.longValue("warmup-lead-s", 40) * 1000, o.intValue("concurrency", 8), 120_000, 2_000);
    }
    return bursts > 0 ? "measured (after warm-up)" : "";
  }

  /**
   * Warm-up bursts, then {@code --warmup-spreads} (default 1) spreads of {@code --warmup-spread-n}
   * (default 10 000) tasks over 15 s: the spread's own path (many small firings, timer re-arming)
   * is still being compiled after bursts alone (JFR: 1.5 s compilations inside the measured window).
   */
  static String warmUpSpread(Harness h, Options o) throws Exception {
    String section = warmUp(h, o);
    int spreads = o.intValue("warmup-spreads", 1);
    for (int i = 1; i <= spreads; i++) {
      spread(h, "warm-up spread " + i + " of " + spreads + " (not the measured figure)",
          o.intValue("warmup-spread-n", 10_000), o.longValue("warmup-lead-s", 40) * 1000, 15_000,
          o.intValue("concurrency", 8), 60_000, 2_000);
      section = "measured (after warm-up)";
    }
    return section;
  }

  // ------------------------------------------------------------------------------------------------
  // smoke

  static void smoke(Harness h) throws Exception {
    int n = h.options.intValue("n", 300);
    long grace = h.options.longValue("grace-s", 2) * 1000;
    burst(h, "burst", n, 8_000, 8, 20_000, grace);
    spread(h, "spread", n, 6_000, 5_000, 8, 20_000, grace);
    Recurring.smoke(h, 20, 5);
    PeerSmoke.run(h.options, h.report, Path.of(h.options.string("results", benchDir().resolve("results").toString())), n);
  }

  // ------------------------------------------------------------------------------------------------
  // spread

  static Receiver.Snapshot spread(Harness h, String section, int n, long leadMs, long windowMs, int concurrency,
                     long drainMs, long graceMs) throws Exception {
    Report r = h.report;
    r.section(section);
    String label = section.isEmpty() ? "spread" : section;
    r.result("tasks", n + " due uniformly over [start+" + leadMs / 1000.0 + " s, start+"
        + (leadMs + windowMs) / 1000.0 + " s]");
    long start = System.currentTimeMillis();
    long firstDue = start + leadMs;
    long[] triggers = new long[n];
    for (int i = 0; i < n; i++) {
      triggers[i] = firstDue + (n == 1 ? 0 : i * windowMs / (n - 1));
    }
    long lastDue = triggers[n - 1];
    Executed run = submitAndDrain(h, label, triggers, concurrency, firstDue, lastDue + drainMs, graceMs);
    reportExecutions(r, run.snap());
    r.result("CPU used", run.cpu());
    judge(r, run.snap(), run.submitted(), true);
    return run.snap();
  }

  /** What one submit-then-wait run produced, with the CPU both processes used for it. */
  record Executed(Submitted submitted, Receiver.Snapshot snap, String cpu) {
  }

  /** Submits tasks at {@code triggers}, reports the submission, and waits until all arrived or the deadline. */
  static Executed submitAndDrain(Harness h, String label, long[] triggers, int concurrency, long firstDue,
                                 long deadline, long graceMs) throws Exception {
    Map<String, Long> expected = new ConcurrentHashMap<>();
    Map<String, Long> acceptedAt = new ConcurrentHashMap<>();
    Receiver.Tracker tracker = h.receiver.track(expected, acceptedAt);
    h.receiver.notifications.reset();
    double cpu0 = h.server.cpuSeconds();
    double benchCpu0 = benchCpuSeconds();
    Submitted s = submitAll(h, label, triggers, concurrency, expected, acceptedAt);
    reportSubmission(h.report, s, triggers.length, concurrency, firstDue);
    // The receiver timestamps arrivals in this JVM, so a pause of its own collector inside the window
    // reads as ax's lateness (2026-12-04: 10-46 ms young pauses of this JVM, more of them with --notify).
    // One collection now, before the first due instant, and run.sh's large young generation keep the
    // window free of them; the "bench GC in the window" row shows whether that held.
    if (System.currentTimeMillis() < firstDue - 2_000) {
      System.gc();
    }
    GcTotals gc0 = GcTotals.now();
    awaitDrain(h, label, tracker, deadline, graceMs);
    h.report.result("bench GC in the window", GcTotals.now().since(gc0));
    Receiver.Snapshot snap = tracker.snapshot();
    String arrivalsDir = System.getProperty("ax.bench.arrivals"); // per-task arrivals, for a closer look
    if (arrivalsDir != null) {
      Path file = Path.of(arrivalsDir, label.replaceAll("[^A-Za-z0-9]+", "-") + "-"
          + System.currentTimeMillis() + ".csv");
      Files.createDirectories(file.getParent());
      tracker.writeArrivals(file);
      System.out.println("arrivals of " + label + " written to " + file);
    }
    if (h.notifyUrl != null) {
      awaitNotifications(h, expected.size(), deadline + 60_000);
      // whether webhooks went out during the callbacks or after them (they yield to a burst)
      h.report.result("webhook arrivals", h.receiver.notifications.window(firstDue, "the first due instant"));
    }
    String cpu = "scheduler " + Report.fmt(h.server.cpuSeconds() - cpu0, 1) + " s, bench "
        + Report.fmt(benchCpuSeconds() - benchCpu0, 1) + " s (submission + execution)";
    return new Executed(s, snap, cpu);
  }

  /**
   * {@code --notify}: waits (up to {@code deadlineMs}) until every accepted task's webhook arrived and
   * reports the deliveries — their rate is the webhook throughput, measured while the callbacks ran.
   */
  static void awaitNotifications(Harness h, int tasks, long deadlineMs) throws InterruptedException {
    Notifications n = h.receiver.notifications;
    while (n.distinct() < tasks && System.currentTimeMillis() < deadlineMs) {
      Thread.sleep(100);
    }
    h.report.result("webhooks (notify_url on every task)", n.summary()
        + (n.distinct() < tasks ? "; MISSING " + (tasks - n.distinct()) + " of " + tasks : ""));
  }

  // ------------------------------------------------------------------------------------------------
  // burst

  static Receiver.Snapshot burst(Harness h, String section, int n, long leadMs, int concurrency, long drainMs,
                    long graceMs) throws Exception {
    Report r = h.report;
    r.section(section);
    String label = section.isEmpty() ? "burst" : section;
    r.result("tasks", n + " all due at start+" + leadMs / 1000.0 + " s");
    long due = System.currentTimeMillis() + leadMs;
    long[] triggers = new long[n];
    java.util.Arrays.fill(triggers, due);
    Executed run = submitAndDrain(h, label, triggers, concurrency, due, due + drainMs, graceMs);
    Submitted s = run.submitted();
    Receiver.Snapshot snap = run.snap();
    if (snap.expectedReceived() > 0) {
      long drain = snap.lastArrivalMs() - due;
      r.result("first execution after due", (snap.firstArrivalMs() - due) + " ms");
      if (snap.missing() == 0) {
        r.result("drain time (last arrival − trigger)", drain + " ms");
        r.result("executions/s (N / drain)", drain <= 0 ? "∞" : Report.fmt(n * 1000.0 / drain, 0));
      } else {
        r.result("drain time", "n/a: " + snap.missing() + " missing (last arrival at +" + drain + " ms)");
      }
    }
    reportExecutions(r, snap);
    r.result("CPU used", run.cpu());
    judge(r, snap, s, true);
    return snap;
  }

  // ------------------------------------------------------------------------------------------------
  // submit (open loop)

  /** The headline of a submit run, for the comparison report. */
  /** {@code inAx}: p50 / p95 / p99 of the same requests inside ax (from its histogram's buckets). */
  public record SubmitFigures(Histogram latencyMs, double okPerSecond, long errors, boolean keptUp, String inAx) {
  }

  public static SubmitFigures submit(Harness h, Report r, Options o) throws Exception {
    double rate = o.doubleValue("rate", 500);
    long seconds = o.longValue("seconds", 30);
    long warmupS = o.longValue("warmup-s", 45);
    long delayMs = o.longValue("delay-s", 3600) * 1000;
    long total = Math.round(rate * (warmupS + seconds));
    double intervalNs = 1e9 / rate;
    r.result("load", Report.fmt(rate, 0) + " req/s open loop for " + seconds + " s after a " + warmupS
        + " s warm-up (" + total + " requests, tasks due +" + delayMs / 1000 + " s)");

    Receiver.Tracker tracker = h.receiver.track(new ConcurrentHashMap<>()); // nothing may execute
    Histogram latency = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    Map<String, Long> outcomes = new TreeMap<>();
    List<String> samples = new ArrayList<>();
    AtomicLong completed = new AtomicLong();
    AtomicLong issueLagMaxUs = new AtomicLong();
    long[] sent = {0};
    long[] measuredOk = {0};
    long[] lastResponseNs = {0};
    long[] okInWindow = {0}; // 201s that arrived while the measured window was open
    String[] anId = {null};
    CompletableFuture<Void> finished = new CompletableFuture<>();
    long startNs = System.nanoTime() + 200_000_000L;
    long warmupEndNs = startNs + warmupS * 1_000_000_000L;
    double cpu0 = h.server.cpuSeconds();
    double[] cpuMeasured = {Double.NaN};

    Context ctx = h.vertx.getOrCreateContext();
    ctx.runOnContext(v -> h.vertx.setPeriodic(1, id -> {
      long now = System.nanoTime();
      if (now < startNs) {
        return;
      }
      long due = Math.min(total, (long) ((now - startNs) / intervalNs) + 1);
      while (sent[0] < due) {
        long k = sent[0]++;
        long scheduledNs = startNs + Math.round(k * intervalNs);
        boolean measured = scheduledNs >= warmupEndNs;
        if (measured && Double.isNaN(cpuMeasured[0])) {
          cpuMeasured[0] = h.server.cpuSeconds();
        }
        long lagUs = (now - scheduledNs) / 1000;
        issueLagMaxUs.accumulateAndGet(lagUs, Math::max);
        h.api.submit(Api.task(k, System.currentTimeMillis() + delayMs, h.callbackUrl)).onComplete(ar -> {
          long doneNs = System.nanoTime();
          long us = (doneNs - scheduledNs) / 1000;
          String outcome = ar.succeeded() ? Api.outcome(ar.result())
              : "transport " + ar.cause().getClass().getSimpleName();
          if (measured) {
            synchronized (latency) {
              outcomes.merge(outcome, 1L, Long::sum);
              lastResponseNs[0] = Math.max(lastResponseNs[0], doneNs);
              if (outcome.equals("201")) {
                latency.recordValue(Math.min(us, latency.getHighestTrackableValue()));
                measuredOk[0]++;
              } else if (samples.size() < 5) {
                samples.add(outcome + ": " + (ar.succeeded() ? ar.result().bodyAsString() : ar.cause().getMessage()));
              }
            }
          }
          if (outcome.equals("201") && doneNs >= warmupEndNs && doneNs < warmupEndNs + seconds * 1_000_000_000L) {
            synchronized (latency) {
              okInWindow[0]++;
            }
          }
          if (anId[0] == null && outcome.equals("201")) {
            anId[0] = String.valueOf(ar.result().bodyAsJsonObject().getValue("task_id"));
          }
          if (completed.incrementAndGet() == total) {
            finished.complete(null);
          }
        });
      }
      if (sent[0] >= total) {
        h.vertx.cancelTimer(id);
      }
    }));
    // ax's own histogram of the same requests, from the end of the warm-up: where the time is spent,
    // inside ax (headers to response end) or outside it (this client, the kernel, the cores' queue)
    long untilMeasuredMs = (warmupEndNs - System.nanoTime()) / 1_000_000;
    if (untilMeasuredMs > 0) {
      Thread.sleep(untilMeasuredMs);
    }
    String metricsAtWindow = h.server.get("/metrics");
    long progressEvery = 5_000;
    long deadline = System.currentTimeMillis() + (warmupS + seconds) * 1000 + 120_000;
    while (!finished.isDone() && System.currentTimeMillis() < deadline) {
      try {
        finished.get(progressEvery, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        System.out.println("[submit] sent " + sent[0] + "/" + total + ", completed " + completed.get());
      }
    }
    double cpu1 = h.server.cpuSeconds();
    String metricsAtEnd = h.server.get("/metrics");
    ScrapedHistogram inAx = new ScrapedHistogram(metricsAtWindow, metricsAtEnd,
        "ax_api_request_latency_seconds", "operation=\"createTask\",status=\"2xx\"");
    ScrapedHistogram statements = new ScrapedHistogram(metricsAtWindow, metricsAtEnd,
        "vertx_sql_processing_time_seconds", "");
    ScrapedHistogram poolWait = new ScrapedHistogram(metricsAtWindow, metricsAtEnd,
        "vertx_pool_queue_time_seconds", "pool_name=\"ax-data\"");
    if (!finished.isDone()) {
      r.fail((total - completed.get()) + " requests had no response 120 s after the last was sent");
    }
    synchronized (latency) {
      r.percentiles("latency from scheduled send (201 only)", msHistogram(latency), " ms", 50, 95, 99, 99.9);
      r.result("latency (µs precision)", "p50 " + latency.getValueAtPercentile(50) + " µs · p99 "
          + latency.getValueAtPercentile(99) + " µs · max " + latency.getMaxValue() + " µs");
      r.result("inside ax (ax_api_request_latency_seconds, createTask 2xx, headers to response end; p50 / p95 / p99 "
          + "by bucket)", inAx.bounds(0.50, 0.95, 0.99) + " over " + Report.fmt(inAx.count(), 0)
          + " requests answered from the end of the warm-up");
      r.result("its PostgreSQL statements (vertx_sql_processing_time_seconds, every statement of the node)",
          statements.bounds(0.50, 0.95, 0.99) + " over " + Report.fmt(statements.count(), 0) + " statements");
      r.result("waiting for a connection of the data pool (vertx_pool_queue_time_seconds{pool_name=\"ax-data\"})",
          poolWait.bounds(0.50, 0.95, 0.99) + " over " + Report.fmt(poolWait.count(), 0) + " waits");
      double drainS = Math.max(seconds, (lastResponseNs[0] - warmupEndNs) / 1e9);
      r.result("throughput (201/s)", Report.fmt(okInWindow[0] / (double) seconds, 1)
          + " answered during the " + seconds + " s window; the measured requests took "
          + Report.fmt(drainS, 1) + " s to answer = " + Report.fmt(measuredOk[0] / drainS, 1)
          + "/s (target " + Report.fmt(rate, 0) + ")");
      if (drainS > seconds * 1.05 + 1) {
        r.note("the scheduler did not keep up with " + Report.fmt(rate, 0)
            + " req/s: requests queued and latency grew through the run (open loop)");
      }
      r.result("outcomes (measured part)", outcomes.toString());
      long errors = outcomes.entrySet().stream().filter(e -> !e.getKey().equals("201"))
          .mapToLong(Map.Entry::getValue).sum();
      r.result("errors", errors);
      for (String sm : samples) {
        r.note("error sample: " + truncate(sm, 300));
      }
    }
    r.result("generator issue lag max", issueLagMaxUs.get() / 1000 + " ms (how late this harness sent; "
        + "the latency above already includes it)");
    if (!Double.isNaN(cpuMeasured[0])) {
      r.result("server CPU (measured part)", Report.fmt(cpu1 - cpuMeasured[0], 1) + " s over " + seconds
          + " s = " + Report.fmt((cpu1 - cpuMeasured[0]) * 100 / seconds, 0) + "% of one core");
    }
    r.result("server CPU (whole run)", Report.fmt(cpu1 - cpu0, 1) + " s");
    if (anId[0] != null) {
      HttpResponse<Buffer> g = h.api.get(anId[0]).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      String status = g.statusCode() == 200 ? g.bodyAsJsonObject().getString("status") : "HTTP " + g.statusCode();
      r.result("spot check GET /openapi/v1/tasks/" + anId[0], g.statusCode() + " status=" + status);
      if (g.statusCode() != 200) {
        r.note("GET of an accepted task failed: " + truncate(g.bodyAsString(), 300));
      }
    }
    Receiver.Snapshot snap = tracker.snapshot();
    r.result("callbacks received (must be 0: tasks are due in the future)", snap.arrivals());
    if (snap.arrivals() > 0) {
      r.fail(snap.arrivals() + " callbacks arrived although every task was due +" + delayMs / 1000 + " s");
    }
    synchronized (latency) {
      double drainS = Math.max(seconds, (lastResponseNs[0] - warmupEndNs) / 1e9);
      long errors = outcomes.entrySet().stream().filter(e -> !e.getKey().equals("201"))
          .mapToLong(Map.Entry::getValue).sum();
      return new SubmitFigures(msHistogram(latency), measuredOk[0] / drainS, errors, drainS <= seconds * 1.05 + 1,
          inAx.bounds(0.50, 0.95, 0.99));
    }
  }

  static Histogram msHistogram(Histogram us) {
    Histogram ms = new Histogram(TimeUnit.MINUTES.toMillis(10), 3);
    for (var v : us.recordedValues()) {
      ms.recordValueWithCount(Math.min(ms.getHighestTrackableValue(), Math.round(v.getValueIteratedTo() / 1000.0)),
          v.getCountAtValueIteratedTo());
    }
    return ms;
  }

  // ------------------------------------------------------------------------------------------------
  // memory

  /** The headline of a memory run, for the comparison report (MB; bytes per task NaN without jcmd). */
  public record MemoryFigures(double idleHeapMb, double idleRssMb, double heapMb, double rssMb, long depth,
                              double bytesPerTask) {
  }

  public static MemoryFigures memory(Harness h) throws Exception {
    Report r = h.report;
    Options o = h.options;
    long stored = o.longValue("stored", 1_000_000);
    long near = o.longValue("near", 100_000);
    long nearFromMs = o.longValue("near-from-s", 15) * 1000;
    long nearToMs = o.longValue("near-to-s", 50) * 1000;
    long depthTimeoutMs = o.longValue("depth-timeout-s", 60) * 1000;
    boolean fire = o.flag("fire");
    r.result("tasks", stored + " stored (due +2 h .. +3 h) + " + near + " near (due +" + nearFromMs / 1000
        + " s .. +" + nearToMs / 1000 + " s), inserted with SQL");

    // Baseline: the idle node after a full GC.
    h.server.forceGc();
    Thread.sleep(500);
    String m0 = h.server.get("/metrics");
    double heap0 = ServerProcess.metric(m0, "jvm_memory_used_bytes", "area=\"heap\"") / 1048576.0;
    double rss0 = h.server.procStatusMb("VmRSS");
    r.result("idle node after GC", "heap used " + Report.mb(heap0) + ", RSS " + Report.mb(rss0));

    Map<String, Long> expected = new HashMap<>();
    Receiver.Tracker tracker = h.receiver.track(expected);
    long t = System.currentTimeMillis();
    try (Connection c = h.db.connect()) {
      c.setAutoCommit(true);
      long farBase = System.currentTimeMillis() + 2 * 3_600_000L;
      insertTasks(c, STORED_ID_BASE, stored, farBase, 3_600_000L, h.callbackUrl, "stored");
      long insertStoredMs = System.currentTimeMillis() - t;
      r.result("insert stored", stored + " rows in " + Report.fmt(insertStoredMs / 1000.0, 1) + " s");
      long t2 = System.currentTimeMillis();
      long nearBase = t2 + nearFromMs;
      long span = nearToMs - nearFromMs;
      synchronized (tracker) { // fill before the first can fire
        for (long n = 1; n <= near; n++) {
          expected.put(Long.toString(NEAR_ID_BASE + n), nearBase + (n - 1) * span / near);
        }
      }
      insertTasks(c, NEAR_ID_BASE, near, nearBase, span, h.callbackUrl, "near");
      long insertNearMs = System.currentTimeMillis() - t2;
      r.result("insert near", near + " rows in " + Report.fmt(insertNearMs / 1000.0, 1) + " s"
          + (insertNearMs > nearFromMs ? " (longer than the lead: some were due before the insert ended)" : ""));
      try (Statement st = c.createStatement()) {
        st.execute("ANALYZE tasks");
      }
      // Check the SQL timestamp arithmetic against the ids' intended trigger times.
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT task_id, (extract(epoch FROM trigger_time) * 1000)::bigint FROM tasks WHERE task_id IN (?, ?, ?)")) {
        ps.setLong(1, NEAR_ID_BASE + 1);
        ps.setLong(2, NEAR_ID_BASE + Math.max(1, near / 2));
        ps.setLong(3, NEAR_ID_BASE + near);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            long want = expected.get(Long.toString(rs.getLong(1)));
            if (rs.getLong(2) != want) {
              r.note("inserted trigger_time of " + rs.getLong(1) + " is " + rs.getLong(2) + ", intended " + want);
            }
          }
        }
      }
    }

    // Wait until the near tasks sit in memory.
    long waitStart = System.currentTimeMillis();
    double depth = Double.NaN;
    double peak = 0;
    long reachedAt = -1;
    long lastPrint = 0;
    while (System.currentTimeMillis() - waitStart < depthTimeoutMs) {
      if (!h.checkServerAlive()) {
        return new MemoryFigures(heap0, rss0, Double.NaN, Double.NaN, 0, Double.NaN);
      }
      depth = ServerProcess.metric(h.server.get("/metrics"), "ax_wheel_queue_depth");
      if (!Double.isNaN(depth)) {
        peak = Math.max(peak, depth);
      }
      if (depth >= near) {
        reachedAt = System.currentTimeMillis();
        break;
      }
      if (System.currentTimeMillis() - lastPrint > 5_000) {
        lastPrint = System.currentTimeMillis();
        System.out.println("[memory] ax_wheel_queue_depth = " + (long) depth + " (waiting for " + near + ")");
      }
      Thread.sleep(500);
    }
    if (reachedAt < 0) {
      r.fail("ax_wheel_queue_depth never reached " + near + " within " + depthTimeoutMs / 1000 + " s (last "
          + (Double.isNaN(depth) ? "absent from /metrics" : Long.toString((long) depth)) + ", peak " + (long) peak
          + "); the memory figures below are for what was held");
    } else {
      r.result("near tasks in memory after", (reachedAt - waitStart) + " ms after the inserts (depth "
          + (long) depth + ")");
    }
    String before = h.server.get("/metrics");
    double heapBefore = ServerProcess.metric(before, "jvm_memory_used_bytes", "area=\"heap\"") / 1048576.0;
    boolean gc = h.server.forceGc();
    Thread.sleep(500);
    String after = h.server.get("/metrics");
    double heap = ServerProcess.metric(after, "jvm_memory_used_bytes", "area=\"heap\"") / 1048576.0;
    double nonHeap = ServerProcess.metric(after, "jvm_memory_used_bytes", "area=\"nonheap\"") / 1048576.0;
    double heapMax = ServerProcess.metric(after, "jvm_memory_max_bytes", "area=\"heap\"") / 1048576.0;
    double depthNow = ServerProcess.metric(after, "ax_wheel_queue_depth");
    double rss = h.server.procStatusMb("VmRSS");
    double hwm = h.server.procStatusMb("VmHWM");
    r.result("heap used" + (gc ? " after GC.run" : " (no jcmd: without GC)"), Report.mb(heap)
        + " (before GC " + Report.mb(heapBefore) + ", max " + Report.mb(heapMax) + ", non-heap " + Report.mb(nonHeap) + ")");
    r.result("RSS (VmRSS)", Report.mb(rss) + " (peak VmHWM " + Report.mb(hwm) + ")");
    r.result("tasks in memory at measurement", (long) depthNow);
    if (depthNow > 0 && gc) {
      r.result("≈ heap per in-memory task", Report.fmt((heap - heap0) * 1048576.0 / depthNow, 0)
          + " bytes ((heap − idle heap) / depth)");
    }

    Receiver.Snapshot snap;
    if (fire) {
      long lastDue = expected.values().stream().mapToLong(Long::longValue).max().orElse(System.currentTimeMillis());
      awaitDrain(h, "memory", tracker, lastDue + o.longValue("drain-timeout-s", 60) * 1000,
          o.longValue("grace-s", 3) * 1000);
      snap = tracker.snapshot();
      reportExecutions(r, snap);
      judge(r, snap, null, true);
    } else {
      snap = tracker.snapshot();
      r.result("near tasks executed so far", snap.expectedReceived() + " (pass --fire to wait for all)");
      judge(r, snap, null, false);
    }
    return new MemoryFigures(heap0, rss0, heap, rss, (long) depthNow,
        depthNow > 0 && gc ? (heap - heap0) * 1048576.0 / depthNow : Double.NaN);
  }

  /** {@code count} rows with ids base+1.., trigger = startMs + (n-1)*spanMs/count, in chunks of 100 000. */
  public static void insertTasks(Connection c, long idBase, long count, long startMs, long spanMs, String callback,
                          String what) throws Exception {
    String sql = """
        INSERT INTO tasks (task_id, tenant_id, api_key, task_type, trigger_time, status, callback_url,
                           timeout_ms, payload)
        SELECT ?::bigint + n, 'bench', 'benchkey', 'bench.noop',
               timestamptz 'epoch' + (?::bigint + ((n - 1) * ?::bigint) / ?::bigint) * interval '1 millisecond',
               'DELAYED', ?, 60000, jsonb_build_object('i', n)
        FROM generate_series(?::bigint, ?::bigint) AS n
        """;
    long chunk = 100_000;
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (long from = 1; from <= count; from += chunk) {
        long to = Math.min(count, from + chunk - 1);
        ps.setLong(1, idBase);
        ps.setLong(2, startMs);
        ps.setLong(3, spanMs);
        ps.setLong(4, count);
        ps.setString(5, callback);
        ps.setLong(6, from);
        ps.setLong(7, to);
        ps.executeUpdate();
        if (count > chunk) {
          System.out.println("[memory] inserted " + to + "/" + count + " " + what + " tasks");
        }
      }
    }
  }

  // ------------------------------------------------------------------------------------------------
  // shared pieces

  /** What a closed-loop submission of a list of tasks produced. */
  record Submitted(Map<String, Long> outcomes, List<String> errorSamples, Histogram latencyUs, long startMs,
                   long endMs, long acceptedAfterDue) {
    long errors() {
      return outcomes.entrySet().stream().filter(e -> !e.getKey().equals("201")).mapToLong(Map.Entry::getValue).sum();
    }
  }

  /**
   * Submits one task per trigger time (in that order, so the earliest are in first) keeping
   * {@code concurrency} requests in flight. Accepted ids go into {@code expected} with their trigger time.
   */
  static Submitted submitAll(Harness h, String label, long[] triggers, int concurrency,
                             Map<String, Long> expected, Map<String, Long> acceptedAt) throws Exception {
    int n = triggers.length;
    AtomicInteger next = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    AtomicLong afterDue = new AtomicLong();
    Map<String, Long> outcomes = new ConcurrentHashMap<>();
    List<String> samples = java.util.Collections.synchronizedList(new ArrayList<>());
    Histogram latency = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    CompletableFuture<Void> all = new CompletableFuture<>();
    long start = System.currentTimeMillis();
    Runnable[] sendNext = new Runnable[1];
    sendNext[0] = () -> {
      int i = next.getAndIncrement();
      if (i >= n) {
        return;
      }
      long t = System.nanoTime();
      JsonObject task = Api.task(i, triggers[i], h.callbackUrl, h.notifyUrl);
      h.api.submit(task).onComplete(ar -> {
        long now = System.currentTimeMillis();
        synchronized (latency) {
          latency.recordValue(Math.min((System.nanoTime() - t) / 1000, latency.getHighestTrackableValue()));
        }
        String outcome;
        if (ar.succeeded() && ar.result().statusCode() == 201) {
          outcome = "201";
          try {
            String id = String.valueOf(ar.result().bodyAsJsonObject().getValue("task_id"));
            acceptedAt.put(id, now);
            expected.put(id, triggers[i]);
          } catch (RuntimeException e) {
            outcome = "201 without a task_id";
          }
          if (now > triggers[i]) {
            afterDue.incrementAndGet();
          }
        } else {
          outcome = ar.succeeded() ? Api.outcome(ar.result()) : "transport " + ar.cause().getClass().getSimpleName();
          if (samples.size() < 5) {
            samples.add(outcome + ": " + truncate(ar.succeeded() ? ar.result().bodyAsString()
                : String.valueOf(ar.cause().getMessage()), 300));
          }
        }
        outcomes.merge(outcome, 1L, Long::sum);
        int d = done.incrementAndGet();
        if (d % 5000 == 0) {
          System.out.println("[" + label + "] submitted " + d + "/" + n);
        }
        if (d == n) {
          all.complete(null);
        } else {
          sendNext[0].run();
        }
      });
    };
    if (n == 0) {
      all.complete(null);
    }
    h.vertx.getOrCreateContext().runOnContext(v -> {
      for (int c = 0; c < concurrency; c++) {
        sendNext[0].run();
      }
    });
    all.get(Math.max(120, n / 20), TimeUnit.SECONDS);
    return new Submitted(new TreeMap<>(outcomes), List.copyOf(samples), latency, start,
        System.currentTimeMillis(), afterDue.get());
  }

  static void reportSubmission(Report r, Submitted s, int n, int concurrency, long firstDue) {
    long ms = Math.max(1, s.endMs() - s.startMs());
    r.result("submission", n + " requests in " + Report.fmt(ms / 1000.0, 1) + " s = "
        + Report.fmt(n * 1000.0 / ms, 0) + " req/s with " + concurrency + " in flight; outcomes " + s.outcomes());
    r.percentiles("submit latency (closed loop)", msHistogram(s.latencyUs()), " ms", 50, 99);
    if (s.endMs() > firstDue) {
      r.note("submission finished " + (s.endMs() - firstDue) + " ms after the first task was due; "
          + s.acceptedAfterDue() + " tasks were accepted after their trigger time (their lateness includes that)");
    }
    for (String e : s.errorSamples()) {
      r.note("submit error sample: " + e);
    }
  }

  /** Waits until every expected task arrived (then {@code graceMs} more for duplicates) or the deadline. */
  static void awaitDrain(Harness h, String label, Receiver.Tracker tracker, long deadlineMs, long graceMs)
      throws InterruptedException {
    long lastPrint = System.currentTimeMillis();
    Receiver.Snapshot snap = tracker.snapshot();
    long total = snap.expectedTotal();
    while (true) {
      long got = tracker.expectedReceived();
      long now = System.currentTimeMillis();
      if (got >= total) {
        System.out.println("[" + label + "] all " + total + " executed; listening " + graceMs + " ms more for duplicates");
        Thread.sleep(graceMs);
        return;
      }
      if (now >= deadlineMs) {
        System.out.println("[" + label + "] deadline reached with " + got + "/" + total + " executed");
        return;
      }
      if (!h.server.alive()) {
        System.out.println("[" + label + "] scheduler process died with " + got + "/" + total + " executed");
        return;
      }
      if (now - lastPrint >= 5_000) {
        lastPrint = now;
        System.out.println("[" + label + "] executed " + got + "/" + total + " (deadline in "
            + (deadlineMs - now) / 1000 + " s)");
      }
      Thread.sleep(100);
    }
  }

  static void reportExecutions(Report r, Receiver.Snapshot s) {
    r.result("executed", s.expectedReceived() + " / " + s.expectedTotal() + " distinct tasks ("
        + s.arrivals() + " callbacks)");
    r.result("missing", s.missing());
    r.result("duplicates (same task_id + attempt twice)", s.duplicates());
    r.result("early (arrived before trigger_time)", s.early() + (s.early() > 0 ? " (earliest by "
        + -s.minLateness() + " ms)" : ""));
    r.percentiles("lateness (arrival − trigger_time)", s.lateness(), " ms", 50, 90, 99, 99.9);
    r.percentiles("lateness in microseconds", s.latenessMicros(), " µs", 50, 90, 99, 99.9);
    if (s.latenessAcceptedBeforeDue() != null
        && s.latenessAcceptedBeforeDue().getTotalCount() != s.lateness().getTotalCount()) {
      r.percentiles("lateness, only tasks accepted before due", s.latenessAcceptedBeforeDue(), " ms",
          50, 90, 99, 99.9);
    }
    r.percentiles("fire lag (fired_at − trigger_time)", s.fireLag(), " ms", 50, 99);
    r.result("retries (attempt > 1)", s.retries());
    r.result("callback signatures", "ok " + s.sigOk() + ", bad " + s.sigBad() + ", missing " + s.sigMissing());
    if (s.unexpected() > 0) {
      r.result("callbacks for tasks not submitted in this phase", s.unexpected());
    }
  }

  /** Fails the report on anything missing, duplicated, early, malformed or rejected. */
  static void judge(Report r, Receiver.Snapshot s, Submitted sub, boolean requireAll) {
    if (sub != null && sub.errors() > 0) {
      r.fail(sub.errors() + " submissions were not accepted (201): " + sub.outcomes());
    }
    if (requireAll && s.missing() > 0) {
      r.fail(s.missing() + " of " + s.expectedTotal() + " accepted tasks never executed");
    }
    if (s.duplicates() > 0) {
      r.fail(s.duplicates() + " duplicate executions, e.g. " + s.duplicateSamples());
    }
    if (s.early() > 0) {
      r.fail(s.early() + " tasks executed before their trigger_time (earliest by " + -s.minLateness() + " ms)");
    }
    if (s.parseErrors() > 0) {
      r.fail(s.parseErrors() + " callbacks whose body did not match the contract");
    }
    if (s.triggerMismatch() > 0) {
      r.fail(s.triggerMismatch() + " callbacks carried a trigger_time different from the submitted one");
    }
    if (s.retries() > 0) {
      r.note(s.retries() + " executions were retries (attempt > 1) although the receiver always answered 200");
    }
    if (s.sigBad() > 0 || s.sigMissing() > 0) {
      r.note("callback signature: " + s.sigBad() + " did not verify, " + s.sigMissing() + " had none");
    }
    if (s.unexpected() > 0) {
      r.note(s.unexpected() + " callbacks for tasks this phase did not submit");
    }
  }

  /** CPU seconds this JVM (submitter + receiver) used so far. */
  /** Collections of this (the bench's) JVM so far: their number and the time they took. */
  record GcTotals(long count, long millis) {
    static GcTotals now() {
      long count = 0;
      long millis = 0;
      for (var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
        count += Math.max(0, gc.getCollectionCount());
        millis += Math.max(0, gc.getCollectionTime());
      }
      return new GcTotals(count, millis);
    }

    String since(GcTotals before) {
      long n = count - before.count;
      return n == 0 ? "none (the receiver's timestamps are not delayed by its own collector)"
          : n + " collection(s), " + (millis - before.millis) + " ms: arrivals during them are stamped late by up to that";
    }
  }

  static double benchCpuSeconds() {
    var os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      return sun.getProcessCpuTime() / 1e9;
    }
    return Double.NaN;
  }

  static String truncate(String s, int max) {
    if (s == null) {
      return "null";
    }
    String one = s.replace('\n', ' ');
    return one.length() <= max ? one : one.substring(0, max) + "…";
  }
}
