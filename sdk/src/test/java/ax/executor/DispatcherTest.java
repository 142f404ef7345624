package ax.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ax.protocol.Dispatch;
import ax.protocol.DispatchedTask;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The dispatcher's run-once rules for repeated and replaced attempts, with real worker threads: a
 * handler that blocks until the test lets it go stands for a task still running.
 */
class DispatcherTest {
  private final MutableClock clock = new MutableClock(java.time.Instant.parse("2026-12-03T00:00:00Z"));
  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
  private final List<TaskResult> results = new CopyOnWriteArrayList<>();
  private final CountDownLatch release = new CountDownLatch(1);
  private final WorkerPools pools = new WorkerPools(new PoolSizes(1, 1, 1));
  private final Dispatcher dispatcher;

  DispatcherTest() {
    TaskHandler blocking = ctx -> {
      runs.computeIfAbsent(ctx.taskId(), k -> new AtomicInteger()).incrementAndGet();
      assertTrue(release.await(10, TimeUnit.SECONDS), "the test never let the handler go");
      return "done " + ctx.taskId();
    };
    // one thread and no buffer: a second distinct task finds no room
    dispatcher = new Dispatcher("exec-1", Map.of("block", new Dispatcher.Registration(blocking, Pool.DEFAULT)),
        pools, new Admission(1, 0), window(), window(), new EpochFence(), ExecutionRecorder.NONE,
        new ExecutorStats(), results::add);
  }

  private <V> DedupeWindow<V> window() {
    return new DedupeWindow<>(clock, Duration.ofMinutes(5), 1_000);
  }

  @AfterEach
  void stop() {
    release.countDown();
    pools.shutdown();
  }

  @Test
  void aLateCopyOfAnAttemptRefusedForRoomIsRefusedOnceTheNextAttemptRuns() throws Exception {
    assertEquals(List.of("a"), accepted(dispatch(task("a", 1))));
    assertEquals(List.of(), accepted(dispatch(task("b", 1))), "no room: b's attempt 1 refused");
    release.countDown();
    awaitResults(1);
    assertEquals(List.of("b"), accepted(dispatch(task("b", 2))), "the scheduler's attempt 2 of b runs");
    awaitResults(2);

    JsonObject lateCopy = dispatch(task("b", 1));

    assertEquals(List.of(), accepted(lateCopy), "the copy of the replaced attempt 1 is refused");
    assertEquals(1, runs.get("b").get(), "b ran once");
  }

  @Test
  void aNewerAttemptWhileTheEarlierRunsAdoptsItsOutcome() throws Exception {
    assertEquals(List.of("a"), accepted(dispatch(task("a", 1))));
    awaitRuns("a", 1);

    assertEquals(List.of("a"), accepted(dispatch(task("a", 2))), "attempt 2 accepted while attempt 1 runs");
    release.countDown();
    awaitResults(2);

    assertEquals(1, runs.get("a").get(), "the handler ran once");
    assertEquals(List.of(1, 2), results.stream().map(TaskResult::attempt).sorted().toList(),
        "the one outcome reported under both attempts");
    assertEquals("done a", results.get(1).result());
  }

  @Test
  void aNewerAttemptAfterAFailureRunsAgain() throws Exception {
    Dispatcher failing = new Dispatcher("exec-2", Map.of("fail", new Dispatcher.Registration(ctx -> {
      runs.computeIfAbsent(ctx.taskId(), k -> new AtomicInteger()).incrementAndGet();
      throw new IllegalStateException("boom");
    }, Pool.DEFAULT)), pools, new Admission(1, 0), window(), window(), new EpochFence(), ExecutionRecorder.NONE,
        new ExecutorStats(), results::add);
    failing.onDispatch(new Dispatch(1, List.of(new DispatchedTask("f", 1, "fail", "t", null, 0, null, 1_000, 0, 0, 1)))
        .toJson());
    awaitResults(1);

    failing.onDispatch(new Dispatch(1, List.of(new DispatchedTask("f", 2, "fail", "t", null, 0, null, 1_000, 0, 0, 1)))
        .toJson());
    awaitResults(2);

    assertEquals(2, runs.get("f").get(), "a retry after a failure is a new run");
  }

  @Test
  void aRepeatOfTheRunningAttemptIsAcceptedAndNotRunAgain() throws Exception {
    assertEquals(List.of("a"), accepted(dispatch(task("a", 1))));
    assertEquals(List.of("a"), accepted(dispatch(task("a", 1))));
    release.countDown();
    awaitResults(1);

    assertEquals(1, runs.get("a").get());
    assertEquals(1, results.size());
  }

  private static DispatchedTask task(String id, int attempt) {
    return new DispatchedTask(id, attempt, "block", "t", null, 0, null, 1_000, 0, 0, 1);
  }

  private static JsonObject dispatch(DispatchedTask task) {
    return new Dispatch(1, List.of(task)).toJson();
  }

  private List<String> accepted(JsonObject dispatch) {
    return dispatcher.onDispatch(dispatch).getJsonArray("accepted").stream().map(String::valueOf).toList();
  }

  private void awaitResults(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (results.size() < n) {
      assertTrue(System.nanoTime() < deadline, "only " + results.size() + " results, expected " + n);
      Thread.sleep(5);
    }
  }

  private void awaitRuns(String id, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (runs.getOrDefault(id, new AtomicInteger()).get() < n) {
      assertTrue(System.nanoTime() < deadline, "task " + id + " never started");
      Thread.sleep(5);
    }
  }
}
