package ax.bench;

import ax.bench.peers.OccurrenceLog;
import ax.bench.peers.RecurringOutcome;
import ax.bench.peers.RecurringPlan;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;
import org.HdrHistogram.Histogram;

/**
 * Recurring schedules measured from outside (bench/README.md "recurring" and "cron-herd"): schedules are
 * created through the signed {@code POST /openapi/v1/schedules}, every occurrence calls the bench's receiver
 * back, and an {@link OccurrenceLog} judges each arrival against the due times the definition gives. The
 * template's payload is {@code {"s": <schedule index>}}, so a callback names its schedule; the callback's
 * {@code trigger_time} is the occurrence's due time.
 */
public final class Recurring {
  static final String TASK_TYPE = "bench.recurring";

  private Recurring() {
  }

  // ------------------------------------------------------------------------------------------------
  // the receiver side

  /** Judges the callbacks of one recurring phase: schedule = payload "s", due time = trigger_time. */
  public static final class Occurrences implements Receiver.Sink {
    public final OccurrenceLog log;
    private long parseErrors;
    private long retries;
    private long foreign;

    public Occurrences(RecurringPlan plan) {
      this.log = new OccurrenceLog(plan);
    }

    @Override
    public void record(long arrival, Buffer body, String sigHeader, Signer signer) {
      int schedule;
      long taskId;
      long due;
      int attempt;
      try {
        JsonObject json = body.toJsonObject();
        JsonObject payload = json.getJsonObject("payload");
        if (payload == null || payload.getValue("s") == null) {
          synchronized (this) {
            foreign++; // a task of another phase (a warm-up straggler): not an occurrence of this one
          }
          return;
        }
        schedule = payload.getInteger("s");
        taskId = Long.parseLong(String.valueOf(json.getValue("task_id")));
        due = Instant.parse(json.getString("trigger_time")).toEpochMilli();
        attempt = json.getValue("attempt") == null ? -1 : json.getInteger("attempt");
      } catch (RuntimeException e) {
        parseError();
        return;
      }
      if (attempt > 1) {
        synchronized (this) {
          retries++;
        }
      }
      log.record(schedule, due, taskId, arrival);
    }

    @Override
    public synchronized void parseError() {
      parseErrors++;
    }

    public synchronized long parseErrors() {
      return parseErrors;
    }

    public synchronized long retries() {
      return retries;
    }

    public synchronized long foreign() {
      return foreign;
    }
  }

  // ------------------------------------------------------------------------------------------------
  // creating schedules

  /** One schedule's definition in the form API.md takes it. */
  public static JsonObject scheduleBody(RecurringPlan plan, int i, String callbackUrl) {
    JsonObject task = new JsonObject().put("task_type", TASK_TYPE).put("callback_url", callbackUrl)
        .put("payload", new JsonObject().put("s", i));
    JsonObject b = new JsonObject().put("start_at", Api.rfc3339(plan.anchor(i)));
    if (plan.aligned() && plan.slots() == 1 && plan.periodMs() == 60_000 && plan.firstDueMs() % 60_000 == 0) {
      // the cron herd: due at second 0 of the minute start_at names, once
      b.put("cron", "0 * * * * *").put("max_runs", 1);
    } else if (plan.aligned() && plan.periodMs() == 1000 && plan.firstDueMs() % 1000 == 0) {
      b.put("cron", "* * * * * *").put("end_at", Api.rfc3339(plan.lastDue(i)));
    } else {
      b.put("every_ms", plan.periodMs()).put("end_at", Api.rfc3339(plan.lastDue(i)));
    }
    return b.put("task", task);
  }

  /** What creating a phase's schedules gave: their ids by index, outcomes, and first due times that differ. */
  public record Created(String[] ids, Map<String, Long> outcomes, List<String> errorSamples, long startMs, long endMs,
                        long firstDueMismatches, String mismatchSample) {
    public long accepted() {
      return outcomes.getOrDefault("201", 0L);
    }

    public long rejected() {
      return outcomes.values().stream().mapToLong(Long::longValue).sum() - accepted();
    }
  }

  /**
   * Creates schedule 0 … n−1 of the plan with {@code concurrency} requests in flight; checks that each
   * answer's {@code next_fire_times[0]} is the first due time the bench computed.
   */
  public static Created create(Harness h, RecurringPlan plan, int concurrency) throws Exception {
    String[] ids = new String[plan.n()];
    Map<String, Long> outcomes = new ConcurrentHashMap<>();
    List<String> samples = Collections.synchronizedList(new ArrayList<>());
    long[] mismatch = {0};
    String[] mismatchSample = {null};
    long start = System.currentTimeMillis();
    inFlight(h, plan.n(), concurrency, i -> h.api.post(Api.SCHEDULES, scheduleBody(plan, i, h.callbackUrl)),
        (i, ar) -> {
          String outcome;
          if (ar.succeeded() && ar.result().statusCode() == 201) {
            outcome = "201";
            JsonObject b = ar.result().bodyAsJsonObject();
            ids[i] = b.getString("schedule_id");
            JsonArray next = b.getJsonArray("next_fire_times");
            long first = next == null || next.isEmpty() ? Long.MIN_VALUE
                : Instant.parse(next.getString(0)).toEpochMilli();
            if (first != plan.anchor(i)) {
              synchronized (mismatch) {
                mismatch[0]++;
                mismatchSample[0] = "schedule " + i + ": next_fire_times " + next + ", expected first "
                    + Api.rfc3339(plan.anchor(i));
              }
            }
          } else {
            outcome = ar.succeeded() ? Api.outcome(ar.result()) : "transport " + ar.cause().getClass().getSimpleName();
            if (samples.size() < 5) {
              samples.add(outcome + ": " + Bench.truncate(ar.succeeded() ? ar.result().bodyAsString()
                  : String.valueOf(ar.cause().getMessage()), 300));
            }
          }
          outcomes.merge(outcome, 1L, Long::sum);
        }, "created");
    return new Created(ids, new TreeMap<>(outcomes), List.copyOf(samples), start, System.currentTimeMillis(),
        mismatch[0], mismatchSample[0]);
  }

  /** Runs {@code n} requests, {@code concurrency} at a time, handing each answer to {@code done}. */
  static void inFlight(Harness h, int n, int concurrency, IntFunction<Future<HttpResponse<Buffer>>> request,
                       BiConsumer<Integer, io.vertx.core.AsyncResult<HttpResponse<Buffer>>> done, String what)
      throws Exception {
    AtomicInteger next = new AtomicInteger();
    AtomicInteger finished = new AtomicInteger();
    CompletableFuture<Void> all = new CompletableFuture<>();
    if (n == 0) {
      return;
    }
    Runnable[] send = new Runnable[1];
    send[0] = () -> {
      int i = next.getAndIncrement();
      if (i >= n) {
        return;
      }
      request.apply(i).onComplete(ar -> {
        try {
          done.accept(i, ar);
        } catch (RuntimeException e) {
          all.completeExceptionally(e);
        }
        int d = finished.incrementAndGet();
        if (d % 5000 == 0) {
          System.out.println("[recurring] " + what + " " + d + "/" + n);
        }
        if (d == n) {
          all.complete(null);
        } else {
          send[0].run();
        }
      });
    };
    h.vertx.getOrCreateContext().runOnContext(v -> {
      for (int c = 0; c < Math.min(concurrency, n); c++) {
        send[0].run();
      }
    });
    all.get(Math.max(120, n / 20), TimeUnit.SECONDS);
  }

  /** The schedules' own counters after the run ({@code GET /openapi/v1/schedules/{id}}). */
  public record States(long read, long runs, long skipped, long misfired, Map<String, Long> statuses,
                       long runsOff, List<String> samples) {
  }

  /** Reads every schedule back; {@code runsOff} counts those whose {@code runs} is not the plan's slots. */
  public static States states(Harness h, Created c, RecurringPlan plan, int concurrency) throws Exception {
    long[] sums = new long[5]; // read, runs, skipped, misfired, runsOff
    Map<String, Long> statuses = new ConcurrentHashMap<>();
    List<String> samples = Collections.synchronizedList(new ArrayList<>());
    List<Integer> known = new ArrayList<>();
    for (int i = 0; i < c.ids().length; i++) {
      if (c.ids()[i] != null) {
        known.add(i);
      }
    }
    inFlight(h, known.size(), concurrency, k -> h.api.get(Api.SCHEDULES + "/" + c.ids()[known.get(k)], Map.of()),
        (k, ar) -> {
          int i = known.get(k);
          if (!ar.succeeded() || ar.result().statusCode() != 200) {
            statuses.merge(ar.succeeded() ? "HTTP " + ar.result().statusCode() : "transport error", 1L, Long::sum);
            return;
          }
          JsonObject s = ar.result().bodyAsJsonObject();
          long runs = s.getLong("runs", 0L);
          long misfired = s.getLong("misfired", 0L);
          synchronized (sums) {
            sums[0]++;
            sums[1] += runs;
            sums[2] += s.getLong("skipped", 0L);
            sums[3] += misfired;
            if (runs != plan.slots() || misfired != 0) {
              sums[4]++;
              if (samples.size() < 10) {
                samples.add("schedule " + i + " (" + c.ids()[i] + "): runs " + runs + ", skipped "
                    + s.getLong("skipped", 0L) + ", misfired " + misfired + ", status " + s.getString("status")
                    + ", last_fire_time " + s.getString("last_fire_time"));
              }
            }
          }
          statuses.merge(s.getString("status"), 1L, Long::sum);
        }, "read back");
    return new States(sums[0], sums[1], sums[2], sums[3], new TreeMap<>(statuses), sums[4], List.copyOf(samples));
  }

  // ------------------------------------------------------------------------------------------------
  // one measured phase

  /** Everything one phase measured. */
  record Phase(RecurringPlan plan, Created created, RecurringOutcome atDeadline, RecurringOutcome outcome,
               Occurrences sink, States states, Map<String, Long> dbAtDeadline, long tailMs, double cpuWhole,
               double cpuWindow, double pgWhole, double benchWhole, long wallMs, String loadStart, String loadEnd) {
  }

  /** The phase's occurrences in the database by status (a diagnostic of what had not arrived yet). */
  static Map<String, Long> occurrencesByStatus(Harness h) {
    Map<String, Long> m = new TreeMap<>();
    try (java.sql.Connection c = h.db.connect(); java.sql.Statement st = c.createStatement();
         java.sql.ResultSet rs = st.executeQuery(
             "SELECT status, count(*) FROM tasks WHERE schedule_id IS NOT NULL GROUP BY status")) {
      while (rs.next()) {
        m.put(rs.getString(1), rs.getLong(2));
      }
    } catch (Exception e) {
      m.put("query failed: " + e.getMessage(), -1L);
    }
    return m;
  }

  static String loadavg() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (Exception e) {
      return "?";
    }
  }

  /**
   * Creates the plan's schedules, waits until every occurrence of the window arrived or
   * {@code drainMs} after the last due time (the figures: missed is counted here). If some had not arrived,
   * it goes on listening while they still come — until all are in, none came for 15 s, or {@code tailMs}
   * more — so that late and never-arriving occurrences are told apart and the node is idle before whatever
   * runs next. Then it listens {@code graceMs} more for doubles and reads the schedules back.
   */
  static Phase run(Harness h, String label, RecurringPlan plan, int concurrency, long drainMs, long graceMs,
                   long tailMs) throws Exception {
    try (Vacuum vacuum = Vacuum.start(h)) {
      Phase p = runPhase(h, label, plan, concurrency, drainMs, graceMs, tailMs);
      if (vacuum != null) {
        h.report.note("the bench ran VACUUM (ANALYZE) on " + vacuum.tables + " every " + vacuum.everyMs / 1000 + " s ("
            + vacuum.runs + " times, " + Report.fmt(vacuum.totalMs / 1000.0, 1) + " s in all) in place of autovacuum");
      }
      return p;
    }
  }

  /**
   * {@code --vacuum-every-s N --vacuum-tables a,b}: the bench runs {@code VACUUM (ANALYZE)} on those tables every N s
   * during a phase. An experiment for a PostgreSQL whose autovacuum is off (this machine's CI configuration
   * has {@code autovacuum = off}): every occurrence moves its schedule's cursor, an UPDATE of one
   * {@code schedules} row, so without vacuuming the table's dead rows grow by one per occurrence; and without
   * autoanalyze the planner keeps the statistics of an empty {@code tasks} table while it grows by 1000 rows a
   * second (on 2026-12-01 that turned ax's stale-parents sweep into a 7.9 s scan of every task, run every
   * top-up interval).
   */
  static final class Vacuum implements AutoCloseable {
    final String tables;
    final long everyMs;
    volatile long runs;
    volatile long totalMs;
    private final Thread thread;
    private volatile boolean stop;

    private Vacuum(Harness h, String tables, long everyMs) {
      this.tables = tables;
      this.everyMs = everyMs;
      this.thread = new Thread(() -> {
        try (java.sql.Connection c = h.db.connect(); java.sql.Statement st = c.createStatement()) {
          c.setAutoCommit(true);
          while (!stop) {
            Thread.sleep(everyMs);
            long t = System.currentTimeMillis();
            for (String table : tables.split(",")) {
              st.execute("VACUUM (ANALYZE) " + table.trim());
            }
            totalMs += System.currentTimeMillis() - t;
            runs++;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (Exception e) {
          System.out.println("[vacuum] stopped: " + e);
        }
      }, "bench-vacuum");
      thread.setDaemon(true);
      thread.start();
    }

    static Vacuum start(Harness h) {
      long every = h.options.longValue("vacuum-every-s", 0) * 1000;
      return every <= 0 ? null : new Vacuum(h, h.options.string("vacuum-tables", "schedules"), every);
    }

    @Override
    public void close() {
      stop = true;
      thread.interrupt();
    }
  }

  static Phase runPhase(Harness h, String label, RecurringPlan plan, int concurrency, long drainMs, long graceMs,
                        long tailMs) throws Exception {
    Occurrences sink = h.receiver.sink(new Occurrences(plan));
    String load0 = loadavg();
    long t0 = System.currentTimeMillis();
    double cpu0 = h.server.cpuSeconds();
    double pg0 = ProcCpu.ofCommand("postgres");
    double bench0 = Bench.benchCpuSeconds();
    Created c = create(h, plan, concurrency);
    System.out.println("[" + label + "] created " + c.accepted() + "/" + plan.n() + " schedules in "
        + (c.endMs() - c.startMs()) + " ms; first due in " + (plan.firstDueMs() - System.currentTimeMillis()) + " ms");
    double cpuAtFirst = Double.NaN;
    double cpuAtLast = Double.NaN;
    long deadline = plan.lastDueMs() + drainMs;
    long lastPrint = System.currentTimeMillis();
    long expected = c.accepted() == plan.n() ? plan.expected() : c.accepted() * plan.slots();
    while (true) {
      long now = System.currentTimeMillis();
      if (Double.isNaN(cpuAtFirst) && now >= plan.firstDueMs()) {
        cpuAtFirst = h.server.cpuSeconds();
      }
      if (Double.isNaN(cpuAtLast) && now >= plan.lastDueMs()) {
        cpuAtLast = h.server.cpuSeconds();
      }
      long got = sink.log.received();
      if (got >= expected || now >= deadline || !h.server.alive()) {
        System.out.println("[" + label + "] " + got + "/" + expected + " occurrences received"
            + (got >= expected ? "; listening " + graceMs + " ms more for doubles" : now >= deadline
            ? " at the deadline" : "; the scheduler process died"));
        break;
      }
      if (now - lastPrint >= 10_000) {
        lastPrint = now;
        long due = now < plan.firstDueMs() ? 0
            : Math.min(plan.slots(), (now - plan.firstDueMs()) / plan.periodMs() + 1) * plan.n();
        System.out.println("[" + label + "] received " + got + "/" + expected + " (≈ " + due + " due so far; load "
            + loadavg() + ")");
      }
      Thread.sleep(100);
    }
    if (Double.isNaN(cpuAtLast)) {
      cpuAtLast = h.server.cpuSeconds();
    }
    RecurringOutcome atDeadline = sink.log.outcome();
    Map<String, Long> db = atDeadline.received() < expected ? occurrencesByStatus(h) : Map.of();
    long tailStart = System.currentTimeMillis();
    if (atDeadline.received() < expected && h.server.alive()) {
      System.out.println("[" + label + "] occurrences in the database by status: " + db + "; listening while late "
          + "ones still arrive (at most " + tailMs / 1000 + " s)");
      long seen = atDeadline.received();
      long changed = tailStart;
      long now;
      while ((now = System.currentTimeMillis()) - changed < 15_000 && now - tailStart < tailMs && seen < expected
          && h.server.alive()) {
        Thread.sleep(500);
        long got = sink.log.received();
        if (got != seen) {
          seen = got;
          changed = System.currentTimeMillis();
        }
        if (now - lastPrint >= 10_000) {
          lastPrint = now;
          System.out.println("[" + label + "] late: received " + got + "/" + expected);
        }
      }
    }
    long tail = System.currentTimeMillis() - tailStart;
    Thread.sleep(graceMs);
    double cpu1 = h.server.cpuSeconds();
    double pg1 = ProcCpu.ofCommand("postgres");
    double bench1 = Bench.benchCpuSeconds();
    long wall = System.currentTimeMillis() - t0;
    String load1 = loadavg();
    RecurringOutcome out = sink.log.outcome();
    States st = states(h, c, plan, concurrency);
    return new Phase(plan, c, atDeadline, out, sink, st, db, tail, cpu1 - cpu0,
        Double.isNaN(cpuAtFirst) ? Double.NaN : cpuAtLast - cpuAtFirst, pg1 - pg0, bench1 - bench0, wall, load0, load1);
  }

  /** The rows every recurring phase reports, and its failures. */
  static void report(Report r, Phase p) {
    RecurringPlan plan = p.plan();
    RecurringOutcome o = p.outcome();
    Created c = p.created();
    r.result("schedules", plan.describe() + "; " + describeKind(plan));
    r.result("window", Api.rfc3339(plan.firstDueMs()) + " … " + Api.rfc3339(plan.lastDueMs()) + " (first to last due time)");
    r.result("creation", plan.n() + " × signed POST /openapi/v1/schedules in "
        + Report.fmt((c.endMs() - c.startMs()) / 1000.0, 1) + " s; outcomes " + c.outcomes()
        + "; ended " + (plan.firstDueMs() - c.endMs()) + " ms before the first due time");
    if (c.endMs() > plan.firstDueMs()) {
      r.note("creating the schedules ended " + (c.endMs() - plan.firstDueMs()) + " ms after the first due time: "
          + "the first occurrences were late before ax held them (raise --lead-s)");
    }
    if (c.firstDueMismatches() > 0) {
      r.fail(c.firstDueMismatches() + " schedules answered a first next_fire_time other than the bench's, e.g. "
          + c.mismatchSample());
    }
    c.errorSamples().forEach(e -> r.note("create error sample: " + e));
    if (c.rejected() > 0) {
      r.fail(c.rejected() + " schedules were not created (201): " + c.outcomes());
    }
    r.result("occurrences expected (from the definitions)", o.expected() + " = " + plan.n() + " × " + plan.slots());
    RecurringOutcome d = p.atDeadline();
    r.result("received by the drain deadline (distinct schedule + due time)", d.received() + " ("
        + Api.rfc3339(plan.lastDueMs()) + " + drain timeout)");
    r.result("missed (expected − received by the deadline)", d.missed() + (d.missed() > 0 ? " (samples below)" : ""));
    if (d.missed() > 0) {
      r.result("occurrences in the database at the deadline, by status", p.dbAtDeadline().toString());
      r.result("arrived after the deadline / still not arrived when the bench stopped listening",
          (o.received() - d.received()) + " / " + o.missed()
          + " (listened " + Report.fmt(p.tailMs() / 1000.0, 0) + " s more; last arrival "
          + Report.fmt((o.lastArrivalMs() - plan.lastDueMs()) / 1000.0, 1) + " s after the last due time)");
    }
    r.result("callbacks in all", o.arrivals() + "");
    r.result("doubled (a due time delivered again)", o.doubled() + " (by another task id " + o.doubledOtherTask()
        + ", by the same task id " + o.doubledSameTask() + ")");
    r.result("early (arrived before the due time)", o.early() + (o.early() > 0 ? " (earliest by " + o.maxEarlyMs() + " ms)" : ""));
    r.result("off the definition's grid / after the window", o.offGrid() + " / " + o.afterWindow());
    r.percentiles("lateness (arrival − trigger_time)" + (d.missed() > 0 ? ", every arrival, late ones included" : ""),
        o.lateness(), " ms", 50, 90, 99, 99.9);
    if (o.p99ByMinute().size() > 1) {
      StringBuilder sb = new StringBuilder();
      o.p99ByMinute().forEach((m, v) -> sb.append(sb.length() == 0 ? "" : " · ").append(m + 1).append(": ").append(v));
      r.result("lateness p99 by minute of the window (ms)", sb.toString());
    }
    States s = p.states();
    r.result("schedules read back (GET)", s.read() + " read: runs " + s.runs() + ", skipped " + s.skipped()
        + ", misfired " + s.misfired() + ", status " + s.statuses() + "; " + s.runsOff()
        + " with runs ≠ " + plan.slots() + " or misfired > 0");
    s.samples().forEach(x -> r.note("schedule counters: " + x));
    long received = Math.max(1, o.received());
    r.result("scheduler CPU per occurrence", Report.fmt(p.cpuWhole() * 1e6 / received, 0) + " µs ("
        + Report.fmt(p.cpuWhole(), 1) + " s from creation to the end of the drain ÷ " + o.received()
        + " occurrences received)" + (Double.isNaN(p.cpuWindow()) ? "" : "; first to last due time: "
        + Report.fmt(p.cpuWindow(), 1) + " s = " + Report.fmt(p.cpuWindow() * 100_000.0
        / Math.max(1, plan.lastDueMs() - plan.firstDueMs()), 0) + " % of a core"));
    r.result("other CPU (same interval)", "PostgreSQL, every backend on the machine (other sessions' included) "
        + Report.fmt(p.pgWhole(), 1) + " s; bench (receiver) " + Report.fmt(p.benchWhole(), 1) + " s; wall "
        + Report.fmt(p.wallMs() / 1000.0, 0) + " s");
    r.result("load average (start / end)", p.loadStart() + " / " + p.loadEnd());
    if (p.sink().retries() > 0) {
      r.note(p.sink().retries() + " callbacks were retries (attempt > 1) although the receiver always answered 200");
    }
    if (p.sink().foreign() > 0) {
      r.note(p.sink().foreign() + " callbacks of other phases arrived during this one (not counted)");
    }
    if (d.missed() > 0) {
      r.fail(d.missed() + " of " + d.expected() + " occurrences had not arrived by the drain deadline ("
          + o.missed() + " still not when the bench stopped listening)");
    }
    if (o.doubled() > 0) {
      r.fail(o.doubled() + " occurrences arrived twice");
    }
    if (o.early() > 0) {
      r.fail(o.early() + " occurrences arrived before their due time");
    }
    if (o.offGrid() > 0 || o.unknown() > 0) {
      r.fail(o.offGrid() + " callbacks carried a trigger_time off their schedule's grid, " + o.unknown()
          + " named no schedule of the phase");
    }
    if (p.sink().parseErrors() > 0) {
      r.fail(p.sink().parseErrors() + " callbacks whose body did not match the contract");
    }
    if (!d.correct() || !o.correct()) {
      for (String x : (o.correct() ? d : o).samples()) {
        r.note(withIds(x, c.ids()));
      }
    }
  }

  /** "schedule 17 …" → "schedule 17 (schedule_id …) …" in a sample line. */
  private static String withIds(String sample, String[] ids) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("schedule (\\d+)").matcher(sample);
    if (m.find()) {
      int i = Integer.parseInt(m.group(1));
      if (i >= 0 && i < ids.length && ids[i] != null) {
        return sample.substring(0, m.end()) + " (schedule_id " + ids[i] + ")" + sample.substring(m.end());
      }
    }
    return sample;
  }

  static String describeKind(RecurringPlan plan) {
    JsonObject b = scheduleBody(plan, 0, "…");
    b.remove("task");
    return "schedule 0 = " + b.encode() + " + task {task_type " + TASK_TYPE + ", callback_url = receiver, payload {\"s\": i}}";
  }

  static long p99(Histogram h) {
    return h.getTotalCount() == 0 ? -1 : h.getValueAtPercentile(99);
  }

  // ------------------------------------------------------------------------------------------------
  // scenarios

  /** {@code recurring}: N schedules every second for M minutes; then a one-shot spread at the same rate. */
  static void recurring(Harness h) throws Exception {
    Options o = h.options;
    Report r = h.report;
    int n = o.intValue("schedules", 1000);
    double minutes = o.doubleValue("minutes", 10);
    long period = o.longValue("every-ms", 1000);
    boolean aligned = o.flag("aligned");
    int slots = (int) Math.max(1, Math.round(minutes * 60_000 / period));
    int concurrency = o.intValue("concurrency", 8);
    long graceMs = o.longValue("grace-s", 3) * 1000;
    String section = Bench.warmUp(h, o);
    r.section(section.isEmpty() ? "recurring" : "recurring, " + section);
    long lead = o.longValue("lead-s", 20) * 1000;
    long firstDue = (System.currentTimeMillis() + lead + 999) / 1000 * 1000;
    RecurringPlan plan = new RecurringPlan(n, firstDue, period, slots, aligned);
    Phase p = run(h, "recurring", plan, concurrency, o.longValue("drain-timeout-s", 30) * 1000, graceMs,
        o.longValue("tail-s", 300) * 1000);
    report(r, p);
    long refS = o.longValue("reference-spread-s", 30);
    if (refS > 0 && p.outcome().missed() > 0) {
      r.note("reference spread skipped: the node still had " + p.outcome().missed() + " occurrences to deliver, so a "
          + "spread now would measure that backlog");
    } else if (refS > 0 && h.server.alive()) {
      int refN = (int) (n * refS * 1000 / period);
      Receiver.Snapshot ref = Bench.spread(h, "reference: one-shot spread at the same rate (" + refN + " tasks over "
          + refS + " s, same node)", refN, Math.max(20_000, refN / 2), refS * 1000, concurrency, 60_000, graceMs);
      r.section(section.isEmpty() ? "recurring" : "recurring, " + section);
      long rp = p99(p.outcome().lateness());
      long sp = p99(ref.lateness());
      r.result("lateness p99: recurring vs one-shot spread at the same rate", rp + " ms vs " + sp + " ms (target: ≤ spread + 5 ms = "
          + (sp + 5) + " ms → " + (aligned ? "not comparable: --aligned makes every second a burst of " + n
          : rp <= sp + 5 ? "met" : "NOT met") + ")");
    }
  }

  /** {@code cron-herd}: N cron schedules all due once at the same minute boundary; then a one-shot burst of N. */
  static void cronHerd(Harness h) throws Exception {
    Options o = h.options;
    Report r = h.report;
    int n = o.intValue("schedules", 10_000);
    int concurrency = o.intValue("concurrency", 8);
    long graceMs = o.longValue("grace-s", 3) * 1000;
    String section = Bench.warmUp(h, o);
    r.section(section.isEmpty() ? "cron-herd" : "cron-herd, " + section);
    // the next minute boundary that leaves the creation (estimated at 500/s) and then --lead-s
    long earliest = System.currentTimeMillis() + o.longValue("lead-s", 20) * 1000 + n * 2L;
    long minute = (earliest + 59_999) / 60_000 * 60_000;
    RecurringPlan plan = new RecurringPlan(n, minute, 60_000, 1, true);
    Phase p = run(h, "cron-herd", plan, concurrency, o.longValue("drain-timeout-s", 60) * 1000, graceMs,
        o.longValue("tail-s", 300) * 1000);
    RecurringOutcome out = p.outcome();
    if (out.received() > 0) {
      r.result("first arrival after the due time", (out.firstArrivalMs() - minute) + " ms");
      if (out.missed() == 0) {
        long drain = out.lastArrivalMs() - minute;
        r.result("drain time (last arrival − due time)", drain + " ms; first to last arrival "
            + (out.lastArrivalMs() - out.firstArrivalMs()) + " ms");
        r.result("occurrences/s (N / drain)", drain <= 0 ? "∞" : Report.fmt(n * 1000.0 / drain, 0));
      } else {
        r.result("drain time", "n/a: " + out.missed() + " missed");
      }
    }
    report(r, p);
    if (o.longValue("reference-burst", 1) > 0 && out.missed() > 0) {
      r.note("reference burst skipped: the node still had " + out.missed() + " occurrences to deliver");
    } else if (o.longValue("reference-burst", 1) > 0 && h.server.alive()) {
      Receiver.Snapshot ref = Bench.burst(h, "reference: one-shot burst of the same N (same node)", n,
          Math.max(30_000, n * 3L), concurrency, 60_000, graceMs);
      r.section(section.isEmpty() ? "cron-herd" : "cron-herd, " + section);
      // a burst's last arrival is its latest one, so its drain time is the lateness maximum
      r.result("cron herd vs one-shot burst of the same N: drain · lateness p99", (out.missed() == 0
          ? (out.lastArrivalMs() - minute) + " ms" : "n/a") + " · " + p99(out.lateness()) + " ms vs "
          + (ref.missing() == 0 ? ref.lateness().getMaxValue() + " ms" : "n/a") + " · " + p99(ref.lateness()) + " ms");
    }
  }

  /** The smoke's recurring part: a few schedules every second for a few seconds, all checked. */
  static void smoke(Harness h, int n, int slots) throws Exception {
    Report r = h.report;
    r.section("recurring");
    long firstDue = (System.currentTimeMillis() + 6_000 + 999) / 1000 * 1000;
    RecurringPlan plan = new RecurringPlan(n, firstDue, 1000, slots, false);
    Phase p = run(h, "smoke recurring", plan, 8, 15_000, h.options.longValue("grace-s", 2) * 1000, 15_000);
    report(r, p);
  }
}
