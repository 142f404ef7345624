package ax.executor;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Results handed over by many worker threads at once reach the scheduler exactly once each, in batches
 * no larger than the cap, and none is left outstanding once answered.
 */
class ResultBatcherTest {
  private Vertx vertx;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void stop() {
    vertx.close().await();
  }

  @Test
  void resultsFromManyThreadsArriveOnceEachInCappedBatches() throws Exception {
    Context context = vertx.getOrCreateContext();
    Map<String, Integer> received = new ConcurrentHashMap<>();
    List<Integer> batchSizes = java.util.Collections.synchronizedList(new ArrayList<>());
    ResultBatcher batcher = new ResultBatcher(vertx, context, json -> {
      batchSizes.add(json.size());
      JsonArray applied = new JsonArray();
      for (Object o : json) {
        String id = ((JsonObject) o).getString("task_id");
        received.merge(id, 1, Integer::sum);
        applied.add(id);
      }
      // Answer asynchronously, as the bridge does.
      return Future.future(p -> vertx.setTimer(1, t -> p.complete(new JsonObject().put("applied", applied)
          .put("refused", new JsonArray()))));
    }, new ExecutorStats());

    int threads = 8;
    int perThread = 2_500;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    for (int t = 0; t < threads; t++) {
      int base = t * perThread;
      pool.submit(() -> {
        go.await();
        for (int i = 0; i < perThread; i++) {
          batcher.submit(new TaskResult(Integer.toString(base + i), 1, 0, TaskResult.Status.SUCCESS, null, null, 0));
        }
        return null;
      });
    }
    go.countDown();
    pool.shutdown();
    assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
    long deadline = System.currentTimeMillis() + 30_000;
    while (batcher.outstanding() > 0 && System.currentTimeMillis() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(0, batcher.outstanding(), "every result answered for");
    assertEquals(threads * perThread, received.size());
    Map<Integer, Integer> twice = new HashMap<>();
    received.forEach((id, n) -> {
      if (n != 1) {
        twice.put(Integer.parseInt(id), n);
      }
    });
    assertTrue(twice.isEmpty(), "sent more than once: " + twice);
    assertTrue(batchSizes.stream().allMatch(n -> n <= ResultBatcher.MAX_BATCH), "batches capped: " + batchSizes);
  }
}
