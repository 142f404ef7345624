package ax.spring;

import ax.executor.AxExecutor;
import ax.executor.ExecutorSummary;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.SmartLifecycle;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The executor's life inside the application context, in three steps:
 *
 * <ol>
 *   <li><b>build</b>, once every singleton exists ({@link #afterSingletonsInstantiated}): the
 *       {@link AxProcessor}s are collected and the executor is built, so a duplicate name or a bad
 *       declaration stops the startup before anything connects;</li>
 *   <li><b>start</b>, in the last lifecycle phase ({@link #PHASE}): after the web server and every other
 *       lifecycle bean, so a task never reaches a processor whose resources are not up yet; it connects
 *       and registers in the background and does not hold up the startup when the scheduler is away
 *       (the SDK keeps retrying; the health indicator shows it);</li>
 *   <li><b>drain</b>, in the same phase on the way down, so before the web server and the beans the
 *       processors use are stopped: no new work, running and buffered tasks finish, every result is
 *       reported, within {@code ax.executor.drain-timeout}. Spring waits for it up to
 *       {@code spring.lifecycle.timeout-per-shutdown-phase}.</li>
 * </ol>
 * A context stopped and started again builds a new executor from the same settings.
 */
public class AxExecutorLifecycle implements SmartLifecycle, SmartInitializingSingleton, DisposableBean {
  /** The last phase: started after, and stopped before, every lifecycle bean of a lower one, web server included. */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE;

  private static final Log LOG = LogFactory.getLog(AxExecutorLifecycle.class);

  private final AxExecutor.Builder builder;
  private final Supplier<ProcessorRegistry> scan;
  private final ExecutorConnection connection;
  private final Duration drainTimeout;
  private volatile List<String> processors = List.of();
  private volatile AxExecutor executor;
  private volatile boolean running;

  /**
   * @param builder configured and validated ({@link ExecutorBuilderFactory}), without handlers
   * @param scan    finds the processors ({@link ProcessorScanner#scan}) once all singletons exist
   */
  AxExecutorLifecycle(AxExecutor.Builder builder, Supplier<ProcessorRegistry> scan, ExecutorConnection connection,
                      Duration drainTimeout) {
    this.builder = builder;
    this.scan = scan;
    this.connection = connection;
    this.drainTimeout = drainTimeout;
  }

  @Override
  public void afterSingletonsInstantiated() {
    ProcessorRegistry registry = scan.get();
    if (registry.isEmpty()) {
      throw new AxExecutorConfigurationException("The ax executor is enabled but no bean declares an @AxProcessor,"
          + " so it would register with nothing to run.", "Annotate a bean method (TaskContext) -> Object, or a"
          + " TaskHandler bean, with @AxProcessor(\"name\"); or set ax.executor.enabled=false.");
    }
    registry.applyTo(builder);
    processors = List.copyOf(registry.entries().keySet());
    executor = build();
    LOG.info("ax executor " + executor.executorId() + " serves " + String.join(", ", processors));
  }

  private AxExecutor build() {
    try {
      return builder.build();
    } catch (IllegalArgumentException e) { // the factory checked every setting: a gap in it, say so plainly
      throw new AxExecutorConfigurationException("The ax executor SDK refused its settings: " + e.getMessage(),
          "Check the ax.executor.* properties and any AxExecutorBuilderCustomizer bean.", e);
    }
  }

  @Override
  public synchronized void start() {
    if (running) {
      return;
    }
    AxExecutor e = executor != null ? executor : build();
    executor = e;
    connection.connecting();
    running = true;
    e.start().whenComplete((ok, error) -> {
      if (error != null && running) {
        LOG.warn("ax executor " + e.executorId() + " stopped before it registered: " + error.getMessage());
      }
    });
  }

  /** Drains, then tells Spring the phase may go on; Spring does not wait longer than its phase timeout. */
  @Override
  public synchronized void stop(Runnable callback) {
    AxExecutor e = executor;
    if (!running || e == null) {
      callback.run();
      return;
    }
    running = false;
    executor = null;
    LOG.info("ax executor " + e.executorId() + " draining (at most " + drainTimeout.toMillis() + " ms)");
    e.drain().whenComplete((summary, error) -> {
      if (error != null) {
        LOG.warn("ax executor " + e.executorId() + " drain failed", error);
      } else {
        log(summary);
      }
      callback.run();
    });
  }

  @Override
  public void stop() {
    CountDownLatch latch = new CountDownLatch(1);
    stop(latch::countDown);
    try {
      latch.await(drainTimeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void log(ExecutorSummary summary) {
    if (summary.clean()) {
      LOG.info(summary.line());
    } else {
      LOG.warn(summary.line());
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  /** Closes an executor that was built but never drained (a startup that failed later, say). */
  @Override
  public void destroy() {
    AxExecutor e = executor;
    executor = null;
    if (e != null) {
      e.close().join();
    }
  }

  /** The running executor (its id, {@code stats()}), empty while stopped. */
  public Optional<AxExecutor> executor() {
    return running ? Optional.ofNullable(executor) : Optional.empty();
  }

  /** The processor names this application serves, sorted. */
  public List<String> processors() {
    return processors;
  }

  public ExecutorConnection.Snapshot connection() {
    return connection.snapshot();
  }
}
