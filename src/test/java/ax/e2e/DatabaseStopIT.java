package ax.e2e;

import ax.testing.PrivatePostgres;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.net.http.HttpTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 10, finding 9: PostgreSQL really stops — a clean shutdown, then a crash — under a steady stream
 * of signed calls. While it is gone, readiness answers 503 (liveness 200) so a load balancer stops
 * sending traffic; every call answers 503, the calls in flight when it died included, none 500 and none
 * hangs; once it is back the node is ready again by itself and every task it answered 201 for is there.
 * The tasks fall due {@value #DUE_AFTER_MS} ms after they are created, so some fire between the stops, some
 * are claimed or in flight when the server goes, and the rest fall due while it is down: each target is
 * called exactly once (no node died, so no re-run is allowed) and none before its trigger time. Each stop
 * lasts a few seconds, far inside the lease's 30 s TTL: the node stays leader in its first term throughout
 * (it used to step down at the first failed renewal, then wait out its own lease: 20 s without scheduling).
 * The server is the test's own ({@link PrivatePostgres}), so the machine's PostgreSQL keeps running.
 */
class DatabaseStopIT {
  private static final String READY = "/health/ready";
  private static final long DUE_AFTER_MS = 1_000;

  /** Signed calls from a few threads, tallied by status; a call without an answer in 10 s is a hang. */
  private static final class Load implements AutoCloseable {
    final Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
    final ConcurrentLinkedQueue<String> created = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<String> oddities = new ConcurrentLinkedQueue<>();
    final AtomicInteger hangs = new AtomicInteger();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();

    Load(ApiClient api, String callbackUrl, int threadCount) {
      for (int t = 0; t < threadCount; t++) {
        int thread = t;
        Thread worker = new Thread(() -> {
          for (int i = 0; running.get(); i++) {
            try {
              JsonObject task = new JsonObject().put("task_type", "stop.load").put("callback_url", callbackUrl)
                  .put("delay_ms", DUE_AFTER_MS).put("biz_key", "t" + thread + "-" + i).put("dedupe", false);
              ApiClient.Reply r = api.submit(task);
              count(r);
              if (r.status() == 201) {
                String id = r.body().getString("task_id");
                created.add(id);
                count(api.get("/openapi/v1/tasks/" + id));
              }
            } catch (HttpTimeoutException e) {
              hangs.incrementAndGet();
            } catch (Exception e) {
              oddities.add(e.toString());
            }
          }
        }, "load-" + t);
        worker.setDaemon(true);
        worker.start();
        threads.add(worker);
      }
    }

    private void count(ApiClient.Reply r) {
      statuses.computeIfAbsent(r.status(), s -> new AtomicInteger()).incrementAndGet();
      if (r.status() >= 500 && r.status() != 503) {
        oddities.add(r.status() + " " + r.raw().body());
      }
    }

    int count(int status) {
      AtomicInteger n = statuses.get(status);
      return n == null ? 0 : n.get();
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      for (Thread t : threads) {
        t.join(15_000);
      }
    }
  }

  @Test
  void whilePostgresIsStoppedTheNodeIsUnreadyAndEveryCallIs503NeverA500() throws Exception {
    try (PrivatePostgres pg = PrivatePostgres.start(); Receiver receiver = new Receiver();
         AxProcess node = AxProcess.start("server", AxProcess.env(
             "AX_PG_URL", pg.url(),
             "AX_BOOTSTRAP_KEY", AxCluster.KEY + ":" + AxCluster.SECRET + ":stop",
             "AX_CALLBACK_ALLOWLIST", "127.0.0.1",
             "AX_RATE_LIMIT", "100000"))) {
      ApiClient api = new ApiClient(node.port, AxCluster.KEY, AxCluster.SECRET);
      assertEquals(200, Health.status(node.port, READY));
      Load load = new Load(api, receiver.url(), 4);
      Thread.sleep(1_500);
      int createdBefore = load.created.size();
      assertTrue(createdBefore > 0, "the load runs: " + load.statuses + " " + load.oddities);

      Map<String, Long> readyAgainMs = new TreeMap<>();
      for (String stop : List.of("fast", "immediate")) {
        if (stop.equals("fast")) {
          pg.stopFast();
        } else {
          pg.stopImmediate();
        }
        assertEquals(503, Health.await(node.port, READY, 503, 5_000), "ready after a " + stop + " stop");
        assertEquals(200, Health.status(node.port, "/health/live"), "live during the outage");
        JsonObject health = Health.of(node.port);
        assertEquals("UNAVAILABLE", health.getString("status"), health.encode());
        assertEquals("DOWN", health.getJsonObject("checks").getString("postgres"), health.encode());
        int refusedBefore = load.count(503);
        Thread.sleep(4_000);
        assertTrue(load.count(503) > refusedBefore, "signed calls during the outage are 503: " + load.statuses);

        long startedAgainAt = System.currentTimeMillis();
        pg.startAgain();
        assertEquals(200, Health.await(node.port, READY, 200, 20_000), "ready again after the " + stop + " stop\n"
            + node.output());
        readyAgainMs.put(stop, System.currentTimeMillis() - startedAgainAt);
        int createdAgain = load.created.size();
        Thread.sleep(1_500);
        assertTrue(load.created.size() > createdAgain, "calls succeed again: " + load.statuses);
      }
      load.close();

      System.out.printf("database stopped twice (fast, immediate) under load: statuses %s, %d hangs, %d created%n",
          new TreeMap<>(load.statuses), load.hangs.get(), load.created.size());
      int gone = 0;
      for (String id : load.created) {
        gone += api.get("/openapi/v1/tasks/" + id).status() == 200 ? 0 : 1;
      }
      List<Long> ids = load.created.stream().map(Long::parseLong).toList();
      long deadline = System.currentTimeMillis() + 30_000;
      while (ids.stream().anyMatch(id -> receiver.calls(id) == 0) && System.currentTimeMillis() < deadline) {
        Thread.sleep(200);
      }
      Thread.sleep(2_000); // a repeat, if any, comes after the first call: give it the time to show
      Arrivals arrivals = Arrivals.of(receiver, ids); // no process died: any second call is a run twice
      System.out.println("their targets: " + arrivals);
      double endedTerms = Health.metric(node.port, "ax_leader_changes_total", "change=\"ended\"");
      int other5xx = load.statuses.entrySet().stream().filter(e -> e.getKey() >= 500 && e.getKey() != 503)
          .mapToInt(e -> e.getValue().get()).sum();
      FaultRow.record("postgres-restart", Map.ofEntries(Map.entry("lost", Math.max(gone, arrivals.lost())),
              Map.entry("rows_gone", gone), Map.entry("never_called", arrivals.lost()),
              Map.entry("run_twice", arrivals.runTwice()), Map.entry("early", arrivals.early()),
              Map.entry("lateness_p99_ms", arrivals.p99()), Map.entry("leader_terms_ended", (long) endedTerms),
              Map.entry("non_503_5xx", other5xx), Map.entry("hangs", load.hangs.get()),
              Map.entry("answered_503", load.count(503)), Map.entry("created", load.created.size()),
              Map.entry("ready_again_ms_after_fast_stop", readyAgainMs.getOrDefault("fast", -1L)),
              Map.entry("ready_again_ms_after_crash", readyAgainMs.getOrDefault("immediate", -1L))),
          "a private PostgreSQL stopped (fast, then immediate) under 4 threads of signed calls of HTTP tasks due "
              + DUE_AFTER_MS + " ms after creation: readiness 503 and every call 503 while it was down; every task "
              + "answered 201 was there afterwards and its target called once (" + arrivals + ")");
      assertEquals(List.of(), new ArrayList<>(load.oddities), "answers other than 2xx/503\n" + node.output());
      assertEquals(0, load.hangs.get(), "calls without an answer in 10 s");
      assertEquals(java.util.Set.of(200, 201, 503), load.statuses.keySet(), "statuses seen");
      for (String id : load.created) {
        assertEquals(200, api.get("/openapi/v1/tasks/" + id).status(), "task " + id + " answered 201 is gone");
      }
      assertEquals(0, arrivals.lost(), "targets never called: " + arrivals + "\n" + node.output());
      assertEquals(0, arrivals.runTwice(), "targets called twice: " + arrivals + "\n" + node.output());
      assertEquals(0, arrivals.early(), "targets called before their trigger time: " + arrivals);
      long unavailableLines = node.output().lines().filter(l -> l.contains("database unavailable while serving")).count();
      assertTrue(unavailableLines <= 5, unavailableLines + " log lines for the " + load.count(503) + " calls answered "
          + "503: one per 10 s is enough to tell an operator, and a line with its stack per call floods the log");
      assertEquals(0, endedTerms, "the node stepped down during a stop shorter than its lease's TTL\n" + node.output());
    }
  }
}
