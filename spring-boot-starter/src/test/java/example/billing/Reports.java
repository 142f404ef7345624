package example.billing;

import ax.executor.Pool;
import ax.executor.TaskContext;
import ax.spring.AxProcessor;
import org.springframework.stereotype.Component;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Processors declared on methods: one that answers, one whose downstream is always away (so every
 * attempt fails) and one slow one, pinned to the slow pool, that the test catches mid-run to see the
 * shutdown wait for it. Counts what it did so the test can compare with what the scheduler recorded.
 */
@Component
class Reports {
  final Map<String, AtomicInteger> flakyCalls = new ConcurrentHashMap<>();
  private final Map<String, CountDownLatch> archiveStarted = new ConcurrentHashMap<>();
  final Map<String, Boolean> archiveFinished = new ConcurrentHashMap<>();

  @AxProcessor("report.render")
  public Map<String, Object> render(TaskContext ctx) {
    return Map.of("report", ctx.payloadObject().getString("name"), "task_id", ctx.taskId(),
        "executor_id", ctx.executorId());
  }

  @AxProcessor("report.flaky")
  public Object flaky(TaskContext ctx) {
    int call = flakyCalls.computeIfAbsent(ctx.taskId(), id -> new AtomicInteger()).incrementAndGet();
    throw new IllegalStateException("report service unavailable (call " + call + ", attempt " + ctx.attempt() + ")");
  }

  @AxProcessor(value = "archive.slow", pool = Pool.SLOW)
  public Map<String, Object> archive(TaskContext ctx) throws InterruptedException {
    startedLatch(ctx.taskId()).countDown();
    Thread.sleep(ctx.payloadObject().getLong("ms"));
    archiveFinished.put(ctx.taskId(), true);
    return Map.of("archived", ctx.payloadObject().getString("invoice"));
  }

  boolean awaitArchiveStarted(String taskId, long timeoutMs) throws InterruptedException {
    return startedLatch(taskId).await(timeoutMs, TimeUnit.MILLISECONDS);
  }

  private CountDownLatch startedLatch(String taskId) {
    return archiveStarted.computeIfAbsent(taskId, id -> new CountDownLatch(1));
  }
}
