package ax.bench.compare;

import ax.bench.Api;
import ax.bench.Bench;
import ax.bench.Harness;
import ax.bench.Receiver;
import ax.bench.Report;
import ax.bench.Recurring;
import ax.bench.peers.Outcome;
import ax.bench.peers.RecurringOutcome;
import ax.bench.peers.RecurringPlan;
import ax.bench.peers.Schedule;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;

/**
 * ax as its users run it: the built {@code target/ax.jar server} as a separate process on a fresh database
 * (the existing {@link Harness}), tasks in through the signed batch endpoint, HTTP callbacks to the bench's
 * receiver. Lateness is taken where the work lands, at the receiver, so it includes the HTTP delivery.
 */
public final class AxContender implements FullContender {
  private final Harness h;
  private final Map<String, Receiver.Tracker> phases = new ConcurrentHashMap<>();
  private final Map<String, Recurring.Occurrences> recurringPhases = new ConcurrentHashMap<>();

  private AxContender(Harness h) {
    this.h = h;
  }

  /** {@code label} names the server log, results/compare-ax-&lt;label&gt;-server.log. */
  public static AxContender start(String label, ax.bench.Options o, Path benchDir) throws Exception {
    return new AxContender(Harness.start("compare-ax-" + label, o, new Report("compare-ax-" + label), benchDir, "512m"));
  }

  public Harness harness() {
    return h;
  }

  @Override
  public String name() {
    return "ax";
  }

  /** The hot path's settings as the jar resolves them (`ax config`), not as this class remembers them. */
  private String settingsInEffect() {
    try {
      return h.server.settingsInEffect(List.of("AX_PG_POOL_SIZE", "AX_TICK_MS", "AX_COMPLETION_LINGER_MS",
          "AX_WHEEL_WINDOW_MS", "AX_LOAD_WINDOW_MS", "AX_LOAD_INTERVAL_MS", "AX_LOAD_BATCH", "AX_CLAIM_BATCH",
          "AX_CLAIM_LEAD_MS", "AX_HTTP_MAX_CONNECTIONS"));
    } catch (Exception e) {
      return "unknown (" + e + ")";
    }
  }

  @Override
  public Map<String, String> settings() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("version", "target/ax.jar as built (" + h.server.launch() + ")");
    m.put("environment", h.server.describedEnv().toString().replaceAll("AX_PG_URL=[^,}]*", "AX_PG_URL=<fresh db>")
        .replaceAll("AX_(HTTP|BRIDGE)_PORT=\\d+", "AX_$1_PORT=<free port>"));
    m.put("settings in effect", settingsInEffect());
    m.put("task", "callback_url = the bench receiver (HTTP POST, answers 200 at once); lateness = arrival − trigger_time");
    m.put("ingest API", "signed POST /openapi/v1/tasks/batch, 1000 tasks per request (per-item 201)");
    m.put("recurring", "one signed POST /openapi/v1/schedules per schedule (4 in flight): every_ms with start_at = the "
        + "staggered anchor and end_at = the last slot (aligned: cron \"* * * * * *\" from start_at to end_at), "
        + "default misfire fire_once, overlap allow; template task_type bench.recurring, payload {\"s\": i}, "
        + "callback_url = the receiver; lateness = arrival − the callback's trigger_time");
    return m;
  }

  @Override
  public Ingested ingest(String phase, Schedule s, int threads, int chunk) throws Exception {
    Map<String, Long> expected = new ConcurrentHashMap<>();
    phases.put(phase, h.receiver.track(expected));
    return ingest(h, s, threads, chunk, i -> Api.task(i, s.trigger(i), h.callbackUrl),
        (id, i) -> expected.put(id, s.trigger(i)));
  }

  /**
   * Sends {@code s} through the signed batch endpoint, {@code threads} requests in flight, each the next
   * {@code chunk} of tasks in trigger order ({@code task} makes the i-th): the HTTP equivalent of the peers'
   * client threads. {@code accepted} hears each accepted task's id and index in {@code s}.
   */
  static Ingested ingest(Harness h, Schedule s, int threads, int chunk, IntFunction<JsonObject> task,
                         BiConsumer<String, Integer> accepted) throws Exception {
    AtomicInteger next = new AtomicInteger();
    AtomicInteger inFlight = new AtomicInteger();
    AtomicLong acceptedCount = new AtomicLong();
    AtomicLong rejected = new AtomicLong();
    String[] sample = {null};
    CompletableFuture<Void> all = new CompletableFuture<>();
    long t0 = System.nanoTime();
    Runnable[] send = new Runnable[1];
    send[0] = () -> {
      int from = next.getAndAdd(chunk);
      if (from >= s.n()) {
        if (inFlight.decrementAndGet() == 0) {
          all.complete(null);
        }
        return;
      }
      int to = Math.min(s.n(), from + chunk);
      JsonArray tasks = new JsonArray();
      for (int i = from; i < to; i++) {
        tasks.add(task.apply(i));
      }
      h.api.submitBatch(tasks).onComplete(ar -> {
        if (ar.succeeded() && ar.result().statusCode() == 200) {
          JsonArray results = ar.result().bodyAsJsonObject().getJsonArray("results");
          for (int k = 0; k < results.size(); k++) {
            JsonObject r = results.getJsonObject(k);
            if (r.getInteger("status_code", 0) == 201) {
              accepted.accept(String.valueOf(r.getValue("task_id")), from + r.getInteger("index", k));
              acceptedCount.incrementAndGet();
            } else {
              rejected.incrementAndGet();
              sample[0] = r.encode();
            }
          }
        } else {
          rejected.addAndGet(to - from);
          sample[0] = ar.succeeded() ? Api.outcome(ar.result()) + " " + ar.result().bodyAsString()
              : String.valueOf(ar.cause());
        }
        send[0].run();
      });
    };
    int lanes = Math.max(1, threads);
    inFlight.set(lanes);
    h.vertx.getOrCreateContext().runOnContext(v -> {
      for (int c = 0; c < lanes; c++) {
        send[0].run();
      }
    });
    all.get(Math.max(120, s.n() / 50), TimeUnit.SECONDS);
    return new Ingested((System.nanoTime() - t0) / 1_000_000, acceptedCount.get(), rejected.get(), sample[0]);
  }

  @Override
  public long executed(String phase) {
    return phases.get(phase).expectedReceived();
  }

  /** Duplicates include retries: the receiver always answers 200, so any second arrival is a second execution. */
  @Override
  public Outcome outcome(String phase) {
    Receiver.Snapshot s = phases.get(phase).snapshot();
    return new Outcome(s.lateness(), s.expectedTotal(), s.expectedReceived(), s.duplicates() + s.retries(), s.early(),
        -s.minLateness(),
        s.firstArrivalMs(), s.lastArrivalMs());
  }

  @Override
  public Ingested scheduleRecurring(String phase, RecurringPlan plan, int threads, int chunk) throws Exception {
    recurringPhases.put(phase, h.receiver.sink(new Recurring.Occurrences(plan)));
    Recurring.Created c = Recurring.create(h, plan, Math.max(1, threads));
    return new Ingested(c.endMs() - c.startMs(), c.accepted(), c.rejected(),
        c.errorSamples().isEmpty() ? (c.firstDueMismatches() > 0 ? c.mismatchSample() : null) : c.errorSamples().get(0));
  }

  @Override
  public long occurrences(String phase) {
    return recurringPhases.get(phase).log.received();
  }

  @Override
  public RecurringOutcome recurringOutcome(String phase) {
    return recurringPhases.get(phase).log.outcome();
  }

  @Override
  public long storeFuture(long offset, long count, long startMs, long spanMs) throws Exception {
    long t0 = System.currentTimeMillis();
    try (Connection c = h.db.connect()) {
      c.setAutoCommit(true);
      Bench.insertTasks(c, Bench.STORED_ID_BASE + offset, count, startMs, spanMs, h.callbackUrl, "stored");
      try (Statement st = c.createStatement()) {
        st.execute("ANALYZE tasks");
      }
    }
    return System.currentTimeMillis() - t0;
  }

  @Override
  public boolean alive() {
    return h.server.alive();
  }

  @Override
  public double cpuSeconds() {
    return h.server.cpuSeconds();
  }

  @Override
  public Connection connectDb() throws SQLException {
    return h.db.connect();
  }

  @Override
  public void close() {
    h.close();
  }
}
