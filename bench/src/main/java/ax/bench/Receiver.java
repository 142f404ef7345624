package ax.bench;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The callback target: {@code POST /hook} on 127.0.0.1 (and, on a second port, {@code POST /notify}, the
 * webhooks of {@code --notify}, see {@link Notifications}), answers 200 {@code {"ok":true}} at once and
 * records, per task, arrival time minus trigger_time ("lateness"). The submitter, this receiver and
 * the scheduler (which uses the database clock) all run on the same machine, so no clock skew enters.
 *
 * <p>Arrivals go to the current {@link Tracker}; a scenario with several phases swaps trackers.
 */
public final class Receiver implements AutoCloseable {
  private static final Buffer OK = Buffer.buffer("{\"ok\":true}");

  private final Vertx vertx;
  private final Signer signer;
  private HttpServer server;
  private HttpServer notifyServer;
  private volatile Sink sink = new Tracker(null, null);
  /** The webhooks ({@code notify_url} = {@code /notify}), counted apart from the callbacks. */
  public final Notifications notifications = new Notifications();

  /** Whatever judges the arrivals of the current phase: a {@link Tracker} for one-shot tasks, or another sink. */
  public interface Sink {
    /** One callback: when it arrived (ms), its body, its X-Ax-Signature header (may be null). */
    void record(long arrival, Buffer body, String sigHeader, Signer signer);

    /**
     * As {@link #record(long, Buffer, String, Signer)}, with the arrival also in microseconds since the
     * epoch; a sink that judges milliseconds only ignores them.
     */
    default void record(long arrival, long arrivalMicros, Buffer body, String sigHeader, Signer signer) {
      record(arrival, body, sigHeader, signer);
    }

    void parseError();
  }

  public Receiver(Vertx vertx, Signer signer) {
    this.vertx = vertx;
    this.signer = signer;
  }

  /** Starts both servers; answers the callback port ({@link #notifyUrl()} has the webhooks'). */
  public int start() throws Exception {
    server = listen("/hook", OK, () -> sink);
    // The webhooks on a server of their own, created from this thread so on the next event loop: a
    // webhook receiver is another service than the task's target. On one server (one event loop) a
    // round of ~130 webhooks, each parsed and its signature checked, queued the callbacks arriving
    // meanwhile, and the bench measured its own queue as the scheduler's lateness.
    notifyServer = listen("/notify", null, () -> notifications);
    return server.actualPort();
  }

  /**
   * A server on a free port of 127.0.0.1 that answers {@code POST path} with 200 (and {@code answer} as
   * JSON, when not null) before it records the arrival in the sink of the moment; anything else is 404.
   */
  private HttpServer listen(String path, Buffer answer, java.util.function.Supplier<Sink> to) throws Exception {
    HttpServer s = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0)
            .setIdleTimeout(0))
        .requestHandler(req -> {
          if (req.method() != HttpMethod.POST || !path.equals(req.path())) {
            req.response().setStatusCode(404).end();
            return;
          }
          req.body().onComplete(ar -> {
            Instant now = Instant.now(); // microseconds on Linux: lateness below the millisecond (spread p99s of 2–4 ms)
            long arrival = now.toEpochMilli();
            long arrivalMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
            if (answer == null) {
              req.response().setStatusCode(200).end();
            } else {
              req.response().setStatusCode(200).putHeader("content-type", "application/json").end(answer);
            }
            if (ar.succeeded()) {
              to.get().record(arrival, arrivalMicros, ar.result(), req.getHeader("X-Ax-Signature"), signer);
            } else {
              to.get().parseError();
            }
          });
        });
    s.listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    return s;
  }

  /** Where webhooks ({@code notify_url}) go: {@code POST /notify} on its own port. */
  public String notifyUrl() {
    return "http://127.0.0.1:" + notifyServer.actualPort() + "/notify";
  }

  /** Starts a new phase: later arrivals are judged against {@code expected} (task id → intended trigger ms). */
  public Tracker track(Map<String, Long> expected) {
    return track(expected, null);
  }

  /**
   * As {@link #track(Map)}; {@code acceptedAt} (task id → ms the 201 arrived) lets the snapshot also
   * give the lateness of the tasks that were accepted before they were due, which is what the
   * scheduler can be held to when submission could not keep ahead of the trigger times.
   */
  public Tracker track(Map<String, Long> expected, Map<String, Long> acceptedAt) {
    Tracker t = new Tracker(expected, acceptedAt);
    sink = t;
    return t;
  }

  /** Starts a new phase judged by {@code s}. */
  public <S extends Sink> S sink(S s) {
    sink = s;
    return s;
  }

  @Override
  public void close() throws Exception {
    if (server != null) {
      server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    if (notifyServer != null) {
      notifyServer.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  /**
   * Everything observed in one phase. Arrivals come from an event loop, the scenario polls from its own
   * thread: all methods are synchronized. {@code expected} (task id → intended trigger ms) may still
   * be filling while tasks arrive, so it is consulted only when a snapshot is taken.
   */
  public static final class Tracker implements Sink {
    private final Map<String, Long> expected; // null: judge every arrival as expected (no id list)
    private final Map<String, Long> acceptedAt; // may be null
    /** task id → {first arrival ms, trigger_time ms from the body, fired_at ms or MIN_VALUE, first arrival µs}. */
    private final Map<String, long[]> first = new HashMap<>();
    private final Set<String> seenAttempts = new HashSet<>();
    private final Map<String, Integer> duplicateSamples = new TreeMap<>();
    private long arrivals;
    private long duplicates;
    private long retries;
    private long parseErrors;
    private long sigOk;
    private long sigBad;
    private long sigMissing;
    /** Expected tasks already counted, and first arrivals not (yet) in {@code expected}. */
    private long counted;
    private final Set<String> uncounted = new HashSet<>();

    Tracker(Map<String, Long> expected, Map<String, Long> acceptedAt) {
      this.expected = expected;
      this.acceptedAt = acceptedAt;
    }

    @Override
    public synchronized void parseError() {
      parseErrors++;
    }

    @Override
    public void record(long arrival, Buffer body, String sigHeader, Signer signer) {
      record(arrival, arrival * 1_000L, body, sigHeader, signer);
    }

    @Override
    public synchronized void record(long arrival, long arrivalMicros, Buffer body, String sigHeader, Signer signer) {
      arrivals++;
      if (sigHeader == null) {
        sigMissing++;
      } else if (signer.verifyOutgoing(sigHeader, body.getBytes())) {
        sigOk++;
      } else {
        sigBad++;
      }
      String taskId;
      int attempt;
      long trigger;
      long firedAt;
      try {
        JsonObject json = body.toJsonObject();
        taskId = String.valueOf(json.getValue("task_id"));
        attempt = json.getValue("attempt") == null ? -1 : json.getInteger("attempt");
        trigger = Instant.parse(json.getString("trigger_time")).toEpochMilli();
        String fa = json.getString("fired_at");
        firedAt = fa == null ? Long.MIN_VALUE : Instant.parse(fa).toEpochMilli();
      } catch (RuntimeException e) {
        parseErrors++;
        return;
      }
      String key = taskId + "#" + attempt;
      if (!seenAttempts.add(key)) {
        duplicates++;
        if (duplicateSamples.size() < 10 || duplicateSamples.containsKey(key)) {
          duplicateSamples.merge(key, 1, Integer::sum);
        }
      }
      if (attempt > 1) {
        retries++;
      }
      if (first.putIfAbsent(taskId, new long[] {arrival, trigger, firedAt, arrivalMicros}) == null) {
        if (expected != null && expected.containsKey(taskId)) {
          counted++;
        } else {
          uncounted.add(taskId); // unknown, or its 201 has not been processed yet
        }
      }
    }

    /** Distinct expected tasks received so far (all distinct tasks when there is no expected list). */
    public synchronized long expectedReceived() {
      if (expected == null) {
        return first.size();
      }
      if (!uncounted.isEmpty()) {
        var it = uncounted.iterator();
        while (it.hasNext()) {
          if (expected.containsKey(it.next())) {
            counted++;
            it.remove();
          }
        }
      }
      return counted;
    }

    /**
     * Writes every expected task's first arrival as CSV (task id, trigger ms, fired_at ms or empty,
     * arrival µs), for looking at when in the window the late ones fell.
     */
    public synchronized void writeArrivals(Path file) throws IOException {
      StringBuilder csv = new StringBuilder("task_id,trigger_ms,fired_at_ms,arrival_us\n");
      first.forEach((id, a) -> {
        if (expected == null || expected.containsKey(id)) {
          csv.append(id).append(',').append(a[1]).append(',').append(a[2] == Long.MIN_VALUE ? "" : Long.toString(a[2]))
              .append(',').append(a[3]).append('\n');
        }
      });
      Files.writeString(file, csv);
    }

    public synchronized Snapshot snapshot() {
      Histogram lateness = new Histogram(TimeUnit.HOURS.toMillis(24), 3);
      Histogram latenessMicros = new Histogram(TimeUnit.HOURS.toMicros(24), 3);
      Histogram fireLag = new Histogram(TimeUnit.HOURS.toMillis(24), 3);
      Histogram onTime = acceptedAt == null ? null : new Histogram(TimeUnit.HOURS.toMillis(24), 3);
      long early = 0;
      long minLateness = 0;
      long expectedReceived = 0;
      long unexpected = 0;
      long mismatch = 0;
      long firstMs = Long.MAX_VALUE;
      long lastMs = Long.MIN_VALUE;
      for (Map.Entry<String, long[]> e : first.entrySet()) {
        long[] a = e.getValue();
        long late = a[0] - a[1];
        if (late < 0) { // an early execution is wrong whatever task it belongs to
          early++;
          minLateness = Math.min(minLateness, late);
        }
        Long intended = expected == null ? Long.valueOf(a[1]) : expected.get(e.getKey());
        if (intended == null) {
          unexpected++;
          continue;
        }
        expectedReceived++;
        if (intended != a[1]) {
          mismatch++;
        }
        if (late >= 0) {
          lateness.recordValue(Math.min(late, lateness.getHighestTrackableValue()));
          long lateMicros = Math.max(0, a[3] - a[1] * 1_000L);
          latenessMicros.recordValue(Math.min(lateMicros, latenessMicros.getHighestTrackableValue()));
          Long acc = onTime == null ? null : acceptedAt.get(e.getKey());
          if (acc != null && acc <= a[1]) {
            onTime.recordValue(Math.min(late, onTime.getHighestTrackableValue()));
          }
        }
        if (a[2] != Long.MIN_VALUE && a[2] >= a[1]) {
          fireLag.recordValue(Math.min(a[2] - a[1], fireLag.getHighestTrackableValue()));
        }
        firstMs = Math.min(firstMs, a[0]);
        lastMs = Math.max(lastMs, a[0]);
      }
      long total = expected == null ? first.size() : expected.size();
      return new Snapshot(lateness, onTime, fireLag, arrivals, first.size(), expectedReceived, total, early,
          minLateness, duplicates, new TreeMap<>(duplicateSamples), retries, unexpected, mismatch,
          parseErrors, sigOk, sigBad, sigMissing,
          firstMs == Long.MAX_VALUE ? 0 : firstMs, lastMs == Long.MIN_VALUE ? 0 : lastMs, latenessMicros);
    }
  }

  /**
   * An immutable view of a tracker. Histograms cover expected tasks only (first execution of each);
   * {@code latenessAcceptedBeforeDue} is null unless accept times were given;
   * {@code early} counts every task whose first arrival preceded its trigger_time. {@code latenessMicros}
   * is {@code lateness} in microseconds (arrival µs − trigger_time × 1000), for differences the
   * millisecond figure cannot show.
   */
  public record Snapshot(Histogram lateness, Histogram latenessAcceptedBeforeDue, Histogram fireLag, long arrivals, long distinct,
                         long expectedReceived, long expectedTotal, long early, long minLateness,
                         long duplicates, Map<String, Integer> duplicateSamples, long retries,
                         long unexpected, long triggerMismatch, long parseErrors,
                         long sigOk, long sigBad, long sigMissing, long firstArrivalMs, long lastArrivalMs,
                         Histogram latenessMicros) {
    public long missing() {
      return expectedTotal - expectedReceived;
    }
  }
}
