package ax.bench.peers;

import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The hidden {@code peer} subcommand: {@code java -jar ax-bench.jar peer <db-scheduler|quartz> <jdbc url>}.
 * A peer runs in its own JVM because ax does too: neither shares a heap, a JIT or GC pauses with the
 * bench. The bench drives it with one command per line on stdin and reads one {@code @@ <json>} answer
 * line per command on stdout (libraries may print other lines; the bench skips them).
 *
 * <pre>
 * ingest &lt;phase&gt; &lt;n&gt; &lt;firstDueMs&gt; &lt;windowMs&gt; &lt;threads&gt; &lt;chunk&gt;  → {ms, accepted, rejected, sample}
 * executed &lt;phase&gt;                                         → {executed}
 * recurring &lt;phase&gt; &lt;n&gt; &lt;firstDueMs&gt; &lt;periodMs&gt; &lt;slots&gt; &lt;aligned&gt; &lt;threads&gt; &lt;chunk&gt;
 *                                                          → {ms, accepted, rejected, sample} (schedules created)
 * occurrences &lt;phase&gt;                                      → {received} (distinct due times run so far)
 * routcome &lt;phase&gt;                                         → RecurringOutcome JSON
 * outcome &lt;phase&gt;                                          → Outcome JSON
 * store &lt;offset&gt; &lt;count&gt; &lt;startMs&gt; &lt;spanMs&gt;               → {ms}
 * settings                                                 → {name: value}
 * stop                                                     → {} and exit
 * </pre>
 */
public final class PeerMain {
  private static final int STORE_CHUNK = 100_000;

  private final Peer peer;
  private final String jdbcUrl;
  private final Map<String, ExecutionLog> logs = new ConcurrentHashMap<>();
  private final Map<String, OccurrenceLog> occurrenceLogs = new ConcurrentHashMap<>();
  private final AtomicLong unknown = new AtomicLong();

  private PeerMain(String system, String jdbcUrl) {
    this.jdbcUrl = jdbcUrl;
    this.peer = switch (system) {
      case "db-scheduler" -> new DbSchedulerPeer(jdbcUrl, recorder());
      case "quartz" -> new QuartzPeer(jdbcUrl, recorder());
      default -> throw new IllegalArgumentException("unknown peer '" + system + "' (db-scheduler, quartz)");
    };
  }

  private Peer.Recorder recorder() {
    return new Peer.Recorder() {
      @Override
      public void executed(String name) {
        record(name);
      }

      @Override
      public void occurred(String name, long dueMs) {
        long now = System.currentTimeMillis();
        OccurrenceLog log = occurrenceLogs.get(Peer.phase(name));
        if (log == null) {
          unknown.incrementAndGet();
          return;
        }
        log.record(Peer.index(name), dueMs, OccurrenceLog.NO_TASK, now);
      }
    };
  }

  /** Called from task bodies with "phase/index". */
  private void record(String name) {
    ExecutionLog log = logs.get(Peer.phase(name));
    if (log == null) {
      unknown.incrementAndGet(); // a backlog task or a phase the bench never announced: must not happen
      return;
    }
    log.executed(Peer.index(name));
  }

  public static void main(String[] args) throws Exception {
    // Protocol answers go to the real stdout; anything a library prints goes to stderr (the peer log).
    PrintStream protocol = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
        StandardCharsets.UTF_8);
    System.setOut(System.err);
    if (args.length != 2) {
      protocol.println("@@ " + new JsonObject().put("error", "usage: peer <db-scheduler|quartz> <jdbc url>"));
      System.exit(2);
    }
    PeerMain m = new PeerMain(args[0], args[1]);
    try {
      m.peer.start();
      protocol.println("@@ " + new JsonObject().put("ready", true));
    } catch (Exception e) {
      e.printStackTrace();
      protocol.println("@@ " + new JsonObject().put("error", "start failed: " + e));
      System.exit(1);
    }
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] a = line.trim().split(" ");
      JsonObject answer;
      try {
        answer = m.handle(a);
      } catch (Exception e) {
        e.printStackTrace();
        answer = new JsonObject().put("error", String.valueOf(e));
      }
      protocol.println("@@ " + answer.encode());
      if (a[0].equals("stop")) {
        break;
      }
    }
    m.peer.close();
    System.exit(0);
  }

  private JsonObject handle(String[] a) throws Exception {
    return switch (a[0]) {
      case "ingest" -> ingest(a[1], new Schedule(Integer.parseInt(a[2]), Long.parseLong(a[3]), Long.parseLong(a[4])),
          Integer.parseInt(a[5]), Integer.parseInt(a[6]));
      case "executed" -> new JsonObject().put("executed", log(a[1]).distinct());
      case "recurring" -> recurring(a[1], new RecurringPlan(Integer.parseInt(a[2]), Long.parseLong(a[3]),
          Long.parseLong(a[4]), Integer.parseInt(a[5]), Boolean.parseBoolean(a[6])), Integer.parseInt(a[7]),
          Integer.parseInt(a[8]));
      case "occurrences" -> new JsonObject().put("received", occurrenceLog(a[1]).received());
      case "routcome" -> occurrenceLog(a[1]).outcome().toJson().put("unknown_phase", unknown.get());
      case "outcome" -> log(a[1]).outcome().toJson().put("unknown", unknown.get());
      case "store" -> store(Long.parseLong(a[1]), Long.parseLong(a[2]), Long.parseLong(a[3]), Long.parseLong(a[4]));
      case "settings" -> new JsonObject(Map.copyOf(peer.settings()));
      case "stop" -> new JsonObject();
      default -> throw new IllegalArgumentException("unknown command " + a[0]);
    };
  }

  private ExecutionLog log(String phase) {
    ExecutionLog log = logs.get(phase);
    if (log == null) {
      throw new IllegalArgumentException("no phase " + phase);
    }
    return log;
  }

  private OccurrenceLog occurrenceLog(String phase) {
    OccurrenceLog log = occurrenceLogs.get(phase);
    if (log == null) {
      throw new IllegalArgumentException("no recurring phase " + phase);
    }
    return log;
  }

  /** Creates the plan's schedules from {@code threads} client threads in chunks, like {@link #ingest}. */
  private JsonObject recurring(String phase, RecurringPlan plan, int threads, int chunk) throws Exception {
    occurrenceLogs.put(phase, new OccurrenceLog(plan));
    return inParallel(plan.n(), threads, chunk, (from, to) -> peer.scheduleRecurring(phase, plan, from, to));
  }

  interface Range {
    void run(int from, int to) throws Exception;
  }

  /**
   * {@code threads} client threads take chunks of {@code chunk} tasks in trigger order and hand each to the
   * peer's scheduling API; the clock runs from the first call to the last return.
   */
  private JsonObject ingest(String phase, Schedule s, int threads, int chunk) throws Exception {
    logs.put(phase, new ExecutionLog(s));
    return inParallel(s.n(), threads, chunk, (from, to) -> peer.schedule(phase, s, from, to));
  }

  private static JsonObject inParallel(int n, int threads, int chunk, Range body) throws Exception {
    AtomicInteger next = new AtomicInteger();
    AtomicLong accepted = new AtomicLong();
    AtomicLong rejected = new AtomicLong();
    String[] sample = {null};
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long t0 = System.nanoTime();
    try {
      Future<?>[] f = new Future<?>[threads];
      for (int t = 0; t < threads; t++) {
        f[t] = pool.submit(() -> {
          for (int from = next.getAndAdd(chunk); from < n; from = next.getAndAdd(chunk)) {
            int to = Math.min(n, from + chunk);
            try {
              body.run(from, to);
              accepted.addAndGet(to - from);
            } catch (Exception e) {
              rejected.addAndGet(to - from);
              sample[0] = String.valueOf(e);
            }
          }
        });
      }
      for (Future<?> x : f) {
        x.get();
      }
    } finally {
      pool.shutdown();
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    return new JsonObject().put("ms", ms).put("accepted", accepted.get()).put("rejected", rejected.get())
        .put("sample", sample[0]);
  }

  private JsonObject store(long offset, long count, long startMs, long spanMs) throws SQLException {
    long t0 = System.currentTimeMillis();
    try (Connection c = DriverManager.getConnection(jdbcUrl)) {
      c.setAutoCommit(true);
      peer.storeFuture(c, offset, count, startMs, spanMs);
      try (var st = c.createStatement()) {
        st.execute("ANALYZE");
      }
    }
    return new JsonObject().put("ms", System.currentTimeMillis() - t0);
  }

  /** A chunk [lo, hi] of 1..count. */
  interface Chunk {
    void run(long lo, long hi) throws SQLException;
  }

  /** Runs 1..count in chunks of 100 000 rows, so no single statement holds millions of rows in memory. */
  static void inChunks(long count, Chunk body) throws SQLException {
    for (long lo = 1; lo <= count; lo += STORE_CHUNK) {
      long hi = Math.min(count, lo + STORE_CHUNK - 1);
      body.run(lo, hi);
      if (count > STORE_CHUNK) {
        System.err.println("stored " + hi + "/" + count);
      }
    }
  }
}
