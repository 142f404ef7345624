package ax.executor;


import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The high / default / slow pools, each with its own fixed threads ({@code ax-exec-high-1} …). Their
 * queues are unbounded on purpose: {@link Admission} bounds what is accepted across all pools, so a
 * queue here only ever holds acked tasks.
 */
final class WorkerPools {
  private final PoolSizes sizes;
  private final Map<Pool, ThreadPoolExecutor> executors = new EnumMap<>(Pool.class);
  private final Map<Pool, AtomicInteger> running = new EnumMap<>(Pool.class);

  WorkerPools(PoolSizes sizes) {
    this.sizes = sizes;
    for (Pool pool : Pool.values()) {
      AtomicInteger threadNo = new AtomicInteger();
      int n = sizes.of(pool);
      executors.put(pool, new ThreadPoolExecutor(n, n, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
        Thread t = new Thread(r, "ax-exec-" + pool.wireName() + "-" + threadNo.incrementAndGet());
        // Daemon: a handler stuck forever must not keep the JVM alive after drain gave up on it.
        t.setDaemon(true);
        return t;
      }));
      running.put(pool, new AtomicInteger());
    }
  }

  void submit(Pool pool, Runnable task) {
    AtomicInteger counter = running.get(pool);
    executors.get(pool).execute(() -> {
      counter.incrementAndGet();
      try {
        task.run();
      } finally {
        counter.decrementAndGet();
      }
    });
  }

  PoolSizes sizes() {
    return sizes;
  }

  int free(Pool pool) {
    return Math.max(0, sizes.of(pool) - running.get(pool).get());
  }

  int running() {
    int n = 0;
    for (AtomicInteger c : running.values()) {
      n += c.get();
    }
    return n;
  }

  int freeThreads() {
    int n = 0;
    for (Pool p : Pool.values()) {
      n += free(p);
    }
    return n;
  }

  /** The heartbeat's {@code free}: idle threads by pool wire name. */
  Map<String, Integer> freeByWireName() {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (Pool p : Pool.values()) {
      out.put(p.wireName(), free(p));
    }
    return out;
  }

  /** Stops taking tasks; running ones finish on their own (threads are daemons). */
  void shutdown() {
    executors.values().forEach(ThreadPoolExecutor::shutdown);
  }
}
