package ax.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ax.fleet.ExecutorRegistry;
import ax.task.OutcomePolicy;
import ax.task.OutcomeTally;
import ax.task.RetryBackoff;
import ax.task.Settled;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmCompilationMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The exposition format {@code /metrics} serves, checked for what {@code promtool check metrics} checks
 * (scripts/check-prometheus.sh runs promtool itself against a live node): help texts, base units, no
 * {@code _count}/{@code _sum}/{@code _bucket} on gauges and counters — and that ax's latencies and sizes
 * are histograms, never client-side quantiles.
 */
class AxMetricsTest {
  private static final Pattern ABBREVIATED_OR_NON_BASE_UNIT = Pattern.compile(
      "(^|_)(ms|us|ns|sec|secs|min|mins|hr|hrs|milliseconds|microseconds|nanoseconds|minutes|hours|days|"
          + "kilobytes|megabytes|gigabytes|percent)(_|$)");

  private final PrometheusMeterRegistry registry = Registries.prometheus();

  @AfterEach
  void close() {
    registry.close();
  }

  /** What Vert.x binds with JVM metrics on, and a few more, so a new binder's naming is caught too. */
  private void bindJvmMeters() {
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new JvmCompilationMetrics().bindTo(registry);
    new JvmInfoMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
  }

  /** family name → TYPE, with a failure listed for every HELP missing or empty. */
  private static Map<String, String> families(String scrape, List<String> problems) {
    Map<String, String> help = new HashMap<>();
    Map<String, String> types = new HashMap<>();
    for (String line : scrape.split("\n")) {
      if (line.startsWith("# HELP ")) {
        String[] p = line.split(" ", 4);
        help.put(p[2], p.length > 3 ? p[3].trim() : "");
      } else if (line.startsWith("# TYPE ")) {
        String[] p = line.split(" ");
        types.put(p[2], p[3]);
      }
    }
    types.keySet().forEach(name -> {
      if (help.getOrDefault(name, "").isEmpty()) {
        problems.add(name + ": no help text");
      }
    });
    return types;
  }

  @Test
  void everyFamilyHasAHelpTextAndABaseUnitAndNoReservedSuffix() {
    bindJvmMeters();
    new AxMetrics(registry);
    List<String> problems = new ArrayList<>();
    Map<String, String> types = families(registry.scrape(), problems);
    types.forEach((name, type) -> {
      if (ABBREVIATED_OR_NON_BASE_UNIT.matcher(name).find()) {
        problems.add(name + ": abbreviated or non-base unit in the name");
      }
      if (!type.equals("histogram") && !type.equals("summary") && name.matches(".*_(count|sum|bucket)")) {
        problems.add(name + ": a " + type + " named like a histogram's part");
      }
      if (type.equals("counter") && !name.endsWith("_total")) {
        problems.add(name + ": a counter without _total");
      }
    });
    assertEquals(List.of(), problems);
    assertTrue(types.containsKey("process_cpu_seconds_total") || types.containsKey("process_cpu_seconds"),
        "the CPU time counter replaces process_cpu_time_ns_total: " + types.keySet());
    assertTrue(types.containsKey("system_cpus"), "system_cpu_count renamed");
  }

  @Test
  void axLatenciesAndSizesAreHistogramsWithBuckets() {
    new AxMetrics(registry);
    List<String> problems = new ArrayList<>();
    Map<String, String> types = families(registry.scrape(), problems);
    for (String histogram : List.of("ax_schedule_delay_seconds", "ax_schedule_batch_size", "ax_claim_latency_seconds",
        "ax_dispatch_latency_seconds", "ax_executor_batch_latency_seconds", "ax_executor_batch_write_latency_seconds",
        "ax_executor_batch_size", "ax_task_retries", "ax_lease_renewal_latency_seconds")) {
      assertEquals("histogram", types.get(histogram), histogram);
    }
    types.forEach((name, type) -> assertTrue(!name.startsWith("ax_") || !type.equals("summary"),
        name + " is a summary: its quantiles cannot be aggregated across nodes"));
    assertTrue(!registry.scrape().contains("quantile="), "no client-side quantiles");
  }

  @Test
  void scheduleDelayHasFineLowBucketsAndTheAlertThresholds() {
    AxMetrics metrics = new AxMetrics(registry);
    metrics.recordHandedOver(AxMetrics.Target.HTTP, 3, 1_000_000);
    String scrape = registry.scrape();
    for (String le : List.of("0.001", "0.002", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1.0", "2.0",
        "2.5", "5.0", "10.0")) {
      assertTrue(scrape.contains("ax_schedule_delay_seconds_bucket{target=\"http\",le=\"" + le + "\"}"), le);
    }
    assertTrue(scrape.contains("ax_schedule_delay_seconds_bucket{target=\"http\",le=\"0.002\"} 0"));
    assertTrue(scrape.contains("ax_schedule_delay_seconds_bucket{target=\"http\",le=\"0.005\"} 1"));
    assertTrue(scrape.contains("ax_dispatch_total{outcome=\"acked\",target=\"http\"} 1.0"), scrape);
  }

  @Test
  void outcomesCountByTargetWithFailuresInARowAndTheRetriesOfFinishedTasks() {
    AxMetrics metrics = new AxMetrics(registry);
    OutcomePolicy policy = new OutcomePolicy(RetryBackoff.of(1_000));
    var retryFailed = policy.failed(1, 2, 1, 3, "HTTP 500", false, 0);
    var okAfterTwo = policy.succeeded(2, 3, 2, null);
    metrics.recordOutcomes(AxMetrics.Target.EXECUTOR, OutcomeTally.of(List.of(retryFailed, okAfterTwo),
        List.of(new Settled(1, retryFailed.status(), 0, 5, null, null, null),
            new Settled(2, okAfterTwo.status(), 0, 5, null, null, null))));
    String scrape = registry.scrape();
    assertTrue(scrape.contains("ax_execute_total{outcome=\"failure\",target=\"executor\"} 1.0"), scrape);
    assertTrue(scrape.contains("ax_execute_total{outcome=\"success\",target=\"executor\"} 1.0"));
    assertTrue(scrape.contains("ax_execute_total{outcome=\"success\",target=\"http\"} 0.0"), "registered at zero");
    assertTrue(scrape.contains("ax_task_failed_twice_total{target=\"executor\"} 1.0"));
    assertTrue(scrape.contains("ax_task_retries_bucket{le=\"1.0\"} 0"));
    assertTrue(scrape.contains("ax_task_retries_bucket{le=\"2.0\"} 1"));
  }

  @Test
  void everyExecutorEventIsScrapedAtZeroBeforeItFirstHappens() {
    new AxMetrics(registry);
    String scrape = registry.scrape();
    // an alert on a rate of these needs the series before the first event, not from it
    for (String event : List.of("suspect", "offline", "health_check_paused", "ack_unread_after_pause")) {
      assertTrue(scrape.contains("ax_executor_events_total{event=\"" + event + "\"} 0.0"), event);
    }
  }

  @Test
  void leaderGaugesFollowTheTermAndCountChanges() {
    AxMetrics metrics = new AxMetrics(registry);
    metrics.recordLeaderTerm(true, 7);
    String leading = registry.scrape();
    assertTrue(leading.contains("ax_leader 1.0"));
    assertTrue(leading.contains("ax_leader_epoch 7.0"));
    metrics.recordLeaderTerm(false, 0);
    String standby = registry.scrape();
    assertTrue(standby.contains("ax_leader 0.0"));
    assertTrue(standby.contains("ax_leader_epoch 0.0"));
    assertTrue(standby.contains("ax_leader_changes_total{change=\"acquired\"} 1.0"));
    assertTrue(standby.contains("ax_leader_changes_total{change=\"ended\"} 1.0"));
    metrics.recordLeaseRenewal(3_000_000);
    String renewed = registry.scrape();
    assertTrue(renewed.contains("ax_lease_renewal_latency_seconds_count 1\n"), renewed);
    assertTrue(renewed.contains("ax_lease_renewal_latency_seconds_bucket{le=\"0.005\"} 1\n"), "3 ms is within 5 ms");
    assertTrue(renewed.contains("ax_lease_renewal_latency_seconds_bucket{le=\"0.0025\"} 0\n"), "3 ms is over 2.5 ms");
  }

  @Test
  void apiRequestsAreTimedPerOperationAndStatusClassWithTheirFirstRequest() {
    AxMetrics metrics = new AxMetrics(registry);
    String fresh = registry.scrape();
    assertTrue(fresh.contains("ax_api_request_latency_seconds_count{operation=\"createTask\",status=\"2xx\"} 0\n"),
        "the dashboard's submissions are there at zero");
    assertTrue(fresh.contains(
        "ax_api_request_latency_seconds_count{operation=\"createTaskBatch\",status=\"2xx\"} 0\n"));
    assertTrue(!fresh.contains("operation=\"none\""), "the others appear with their first request");
    metrics.recordApiRequest("createTask", "2xx", 3_000_000);
    metrics.recordApiRequest("createTask", "2xx", 30_000_000);
    metrics.recordApiRequest("none", "4xx", 100_000);
    String scrape = registry.scrape();
    assertEquals("histogram", families(scrape, new ArrayList<>()).get("ax_api_request_latency_seconds"));
    assertTrue(scrape.contains("ax_api_request_latency_seconds_count{operation=\"createTask\",status=\"2xx\"} 2\n"),
        scrape);
    assertTrue(scrape.contains(
        "ax_api_request_latency_seconds_bucket{operation=\"createTask\",status=\"2xx\",le=\"0.005\"} 1\n"));
    assertTrue(scrape.contains(
        "ax_api_request_latency_seconds_bucket{operation=\"createTask\",status=\"2xx\",le=\"0.05\"} 2\n"));
    assertTrue(scrape.contains("ax_api_request_latency_seconds_count{operation=\"none\",status=\"4xx\"} 1\n"));
  }

  @Test
  void theDatabaseStatementAndPoolWaitTimersOfVertxGetBuckets() {
    // the names Vert.x's Micrometer metrics register (dots: Micrometer's own convention)
    Timer.builder("vertx.sql.processing.time").register(registry).record(3, TimeUnit.MILLISECONDS);
    Timer.builder("vertx.pool.queue.time").tag("pool_type", "sql").register(registry).record(40, TimeUnit.MILLISECONDS);
    Timer.builder("vertx.other.time").register(registry).record(1, TimeUnit.MILLISECONDS);
    String scrape = registry.scrape();
    assertTrue(scrape.contains("vertx_sql_processing_time_seconds_bucket{le=\"0.0025\"} 0\n"), scrape);
    assertTrue(scrape.contains("vertx_sql_processing_time_seconds_bucket{le=\"0.005\"} 1\n"));
    assertTrue(scrape.contains("vertx_pool_queue_time_seconds_bucket{pool_type=\"sql\",le=\"0.05\"} 1\n"));
    assertTrue(!scrape.contains("vertx_other_time_seconds_bucket"), "only those two");
  }

  @Test
  void executorsAreCountedByState() {
    AxMetrics metrics = new AxMetrics(registry);
    metrics.recordExecutors(new ExecutorRegistry.Census(1, 3, 1, 0, 2));
    String scrape = registry.scrape();
    assertTrue(scrape.contains("ax_executors{state=\"live\"} 3.0"));
    assertTrue(scrape.contains("ax_executors{state=\"offline\"} 2.0"));
    assertTrue(scrape.contains("ax_executors{state=\"draining\"} 0.0"));
  }

  @Test
  void clockOffsetIsInSeconds() {
    AxMetrics metrics = new AxMetrics(registry);
    metrics.gaugeClockOffset(() -> -75);
    assertTrue(registry.scrape().contains("ax_clock_offset_seconds -0.075"));
  }
}
