package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fault matrix's "idempotency" row: 10 000 submissions of one biz_key at once
 * ({@code -Dax.faults.bizkey=N} for another count), spread over two nodes and many client threads, each
 * with a different payload and trigger time (so only the biz_key makes them one task). One task is
 * created; every 2xx answer names it; PostgreSQL holds exactly one row for the key.
 */
class BizKeyRaceIT {
  private static final int SUBMISSIONS = Integer.getInteger("ax.faults.bizkey", 10_000);
  private static final int THREADS = 64;

  @Test
  void tenThousandConcurrentSubmissionsOfOneBizKeyCreateOneTask() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 2, Map.of())) {
      ax.awaitLeader(30_000);
      List<ApiClient> clients = List.of(ax.api(0), ax.api(1));
      Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
      Set<String> namedIds = ConcurrentHashMap.newKeySet();
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      CountDownLatch go = new CountDownLatch(1);
      long started;
      long took;
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          int thread = t;
          done.add(pool.submit(() -> {
            go.await();
            for (int i = thread; i < SUBMISSIONS; i += THREADS) {
              JsonObject task = new JsonObject().put("task_type", "race.bizkey").put("biz_key", "order-10000")
                  .put("callback_url", receiver.url()).put("delay_ms", 3_600_000L + i)
                  .put("payload", new JsonObject().put("i", i));
              ApiClient.Reply r = clients.get(i % 2).submit(task);
              statuses.merge(r.status(), 1, Integer::sum);
              if (r.status() / 100 == 2) {
                namedIds.add(r.body().getString("task_id"));
              }
            }
            return null;
          }));
        }
        started = System.currentTimeMillis();
        go.countDown();
        for (Future<?> f : done) {
          f.get();
        }
        took = System.currentTimeMillis() - started;
      } finally {
        pool.shutdownNow();
      }
      int rows = ax.count("SELECT count(*) FROM tasks WHERE biz_key = 'order-10000'");
      int created = statuses.getOrDefault(201, 0);
      int answered2xx = statuses.entrySet().stream().filter(e -> e.getKey() / 100 == 2).mapToInt(Map.Entry::getValue).sum();
      System.out.printf("biz_key race: %d submissions on 2 nodes from %d threads in %d ms: statuses %s, rows %d, "
          + "task ids named %d%n", SUBMISSIONS, THREADS, took, new TreeMap<>(statuses), rows, namedIds.size());
      FaultRow.record("idempotency", Map.of("submissions", SUBMISSIONS, "tasks_created", Math.max(rows, created),
              "answered_201", created, "distinct_ids_answered", namedIds.size(), "answered_2xx", answered2xx,
              "statuses", new TreeMap<>(statuses).toString(), "took_ms", took),
          SUBMISSIONS + " concurrent submissions of one biz_key (each payload and trigger time different) from "
              + THREADS + " threads over two nodes: one task, every 2xx named it");
      assertEquals(1, rows, "rows stored for the biz_key");
      assertEquals(1, created, "answers 201");
      assertEquals(1, namedIds.size(), "every 2xx answer names the same task: " + namedIds);
      assertEquals(SUBMISSIONS, answered2xx, "every submission answered 2xx: " + statuses);
      assertTrue(statuses.keySet().stream().allMatch(s -> s == 200 || s == 201), "statuses " + statuses);
    }
  }
}
