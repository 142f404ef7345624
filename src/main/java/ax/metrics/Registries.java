package ax.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.config.MeterFilterReply;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;

/**
 * The node's meter registry, made so that {@code promtool check metrics} finds nothing to complain about
 * in {@code /metrics}. Three of Micrometer's JVM meters (bound by Vert.x) break Prometheus's naming rules,
 * and are replaced or renamed before anything registers:
 * <ul>
 *   <li>{@code jvm_compilation_time_ms_total} (an abbreviated unit): dropped; nothing of ax reads it.</li>
 *   <li>{@code process_cpu_time_ns_total} (an abbreviated unit): replaced by Prometheus's standard
 *       {@code process_cpu_seconds_total}.</li>
 *   <li>{@code system_cpu_count} (a gauge ending in {@code _count}, which readers take for a histogram's
 *       count): renamed {@code system_cpus}.</li>
 * </ul>
 * Two of Vert.x's timers get histogram buckets (ax's round-trip buckets, 0.5 ms to 5 s), so their tail
 * can be read, not only their mean and recent maximum: {@code vertx_sql_processing_time_seconds} (a
 * PostgreSQL statement as the node sees it, from sending to the last row) and
 * {@code vertx_pool_queue_time_seconds} (waiting for a pooled connection or worker thread). Together
 * with {@code ax_api_request_latency_seconds} they say whether a slow request waited on the database,
 * on the pool, or on the node itself.
 */
public final class Registries {
  private static final Set<String> WITH_BUCKETS = Set.of("vertx_sql_processing_time", "vertx_pool_queue_time");
  private static final DistributionStatisticConfig BUCKETS = DistributionStatisticConfig.builder()
      .serviceLevelObjectives(Arrays.stream(AxMetrics.ROUND_TRIP_BUCKETS).mapToDouble(Duration::toNanos).toArray())
      .build();

  private Registries() {
  }

  public static PrometheusMeterRegistry prometheus() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.config()
        .meterFilter(deny("jvm.compilation.time"))
        .meterFilter(deny("process.cpu.time"))
        .meterFilter(new MeterFilter() {
          @Override
          public Meter.Id map(Meter.Id id) {
            return id.getName().equals("system.cpu.count") ? id.withName("system.cpus") : id;
          }
        })
        .meterFilter(new MeterFilter() {
          @Override
          public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
            return WITH_BUCKETS.contains(id.getName().replace('.', '_')) ? BUCKETS.merge(config) : config;
          }
        });
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      FunctionCounter.builder("process.cpu", sun, b -> b.getProcessCpuTime() / 1e9).baseUnit("seconds")
          .description("CPU time used by this process").register(registry);
    }
    return registry;
  }

  private static MeterFilter deny(String name) {
    return new MeterFilter() {
      @Override
      public MeterFilterReply accept(Meter.Id id) {
        return id.getName().equals(name) ? MeterFilterReply.DENY : MeterFilterReply.NEUTRAL;
      }
    };
  }
}
