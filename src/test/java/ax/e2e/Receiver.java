package ax.e2e;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.RandomAccess;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The user's HTTP target: records every call ax makes (task, attempt, arrival, lateness, signature
 * header) and answers by task_type: {@code *.fail} → 500, {@code *.slow} → 200 after {@value #SLOW_MS} ms,
 * {@code *.sleep<ms>} → 200 after that many ms, anything else → 200 at once, with a JSON body.
 */
final class Receiver implements AutoCloseable {
  static final long SLOW_MS = 500;

  record Hit(long taskId, int attempt, long arrivedAtMs, long triggerTimeMs, String signature, JsonObject body) {
    long latenessMs() {
      return arrivedAtMs - triggerTimeMs;
    }

    /**
     * When the node signed the call ({@code t=} of {@code X-Ax-Signature}, its database clock, read as the
     * task was released), so a hit's lateness splits into the node's part ({@code signedAtMs - triggerTimeMs})
     * and the way here ({@code arrivedAtMs - signedAtMs}: the node's HTTP client, the kernel, this receiver).
     */
    long signedAtMs() {
      return Long.parseLong(signature.substring("t=".length(), signature.indexOf(',')));
    }
  }

  private final Vertx vertx = Vertx.vertx();
  private final HttpServer server;
  /** Every call, in arrival order; readable while calls arrive. */
  final List<Hit> hits = new AppendOnlyList<>();
  final Map<Long, List<Hit>> byTask = new ConcurrentHashMap<>();
  /** Webhook bodies (notify_url pointed here), answered 200. */
  final List<JsonObject> webhooks = new CopyOnWriteArrayList<>();

  Receiver() {
    server = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(buf -> {
      long now = System.currentTimeMillis();
      JsonObject body = buf.toJsonObject();
      if (!body.containsKey("attempt")) { // a webhook (notify_url), not a call of the task itself
        webhooks.add(body);
        req.response().putHeader("content-type", "application/json").end("{}");
        return;
      }
      Hit h = new Hit(Long.parseLong(body.getString("task_id")), body.getInteger("attempt"), now,
          Instant.parse(body.getString("trigger_time")).toEpochMilli(), req.getHeader("x-ax-signature"), body);
      hits.add(h);
      byTask.computeIfAbsent(h.taskId(), k -> new CopyOnWriteArrayList<>()).add(h);
      if (body.getString("task_type").endsWith(".fail")) {
        req.response().setStatusCode(500).end("boom");
      } else if (body.getString("task_type").matches(".*\\.sleep[0-9]+")) {
        // e.g. it.overlap.sleep2500: a run that takes that long (occurrences that would overlap)
        String type = body.getString("task_type");
        long ms = Long.parseLong(type.substring(type.lastIndexOf(".sleep") + ".sleep".length()));
        vertx.setTimer(ms, t -> req.response().putHeader("content-type", "application/json")
            .end(new JsonObject().put("handled", h.taskId()).encode()));
      } else if (body.getString("task_type").endsWith(".slow")) {
        // keeps the call in flight for a while: what a node killed mid-call leaves behind
        vertx.setTimer(SLOW_MS, t -> req.response().putHeader("content-type", "application/json")
            .end(new JsonObject().put("handled", h.taskId()).put("attempt", h.attempt()).encode()));
      } else {
        req.response().putHeader("content-type", "application/json")
            .end(new JsonObject().put("handled", h.taskId()).put("attempt", h.attempt()).encode());
      }
    })).listen(0, "127.0.0.1").await();
    warmUp();
  }

  /**
   * One request through the server before any node calls it: the first request a JVM serves loads its
   * HTTP server classes, and the first tasks of a test arrived 0.3-1.1 s late for that alone (the node
   * had sent them on time). Bounded: an unbounded await of this once held a CI run for 2.5 hours; if it
   * does not answer within 5 s the test goes on cold.
   */
  private void warmUp() {
    var client = vertx.createHttpClient();
    try {
      client.request(io.vertx.core.http.HttpMethod.POST, server.actualPort(), "127.0.0.1", "/hook")
          .compose(req -> req.putHeader("content-type", "application/json").send("{}"))
          .compose(resp -> resp.body())
          .toCompletionStage().toCompletableFuture().get(5, java.util.concurrent.TimeUnit.SECONDS);
    } catch (Exception coldStart) {
      System.err.println("Receiver warm-up did not complete (" + coldStart + "); the first calls may arrive late");
    } finally {
      client.close();
      webhooks.clear();
    }
  }

  String url() {
    return "http://127.0.0.1:" + server.actualPort() + "/hook";
  }

  int calls(long taskId) {
    return byTask.getOrDefault(taskId, List.of()).size();
  }

  /** How the calls of these tasks went: how many were never called, how many more than once. */
  record Tally(int lost, int twice) {
  }

  Tally tally(Collection<String> taskIds) {
    int lost = 0;
    int twice = 0;
    for (String id : taskIds) {
      int n = calls(Long.parseLong(id));
      lost += n == 0 ? 1 : 0;
      twice += n > 1 ? 1 : 0;
    }
    return new Tally(lost, twice);
  }

  /** The lateness of every call received so far, ms (negative: called before its trigger time). */
  List<Long> lateness() {
    return hits.stream().map(Hit::latenessMs).toList();
  }

  @Override
  public void close() {
    vertx.close().await();
  }

  /**
   * A list that only grows: adds take a lock, reads see a prefix of it without copying. A
   * CopyOnWriteArrayList copied every hit on every call — quadratic in the herd test's 50 000 calls, on the
   * event loop that answers them.
   */
  private static final class AppendOnlyList<T> extends AbstractList<T> implements RandomAccess {
    private Object[] items = new Object[1024];
    private int size;

    @Override
    public synchronized boolean add(T item) {
      if (size == items.length) {
        items = Arrays.copyOf(items, size * 2);
      }
      items[size++] = item;
      return true;
    }

    @Override
    @SuppressWarnings("unchecked")
    public synchronized T get(int index) {
      Objects.checkIndex(index, size);
      return (T) items[index];
    }

    @Override
    public synchronized int size() {
      return size;
    }
  }
}
