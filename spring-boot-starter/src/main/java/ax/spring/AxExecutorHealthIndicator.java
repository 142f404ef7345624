package ax.spring;

import ax.executor.AxExecutor;
import ax.executor.ExecutorStats;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

import java.util.Optional;

/**
 * {@code axExecutor} in {@code /actuator/health}: UP while the executor holds a registered session,
 * DOWN while it is connecting or has lost its connection (the SDK keeps retrying), OUT_OF_SERVICE
 * once stopped or draining. The details say which node, since when, why the connection was lost, and
 * the executor's counters.
 */
public class AxExecutorHealthIndicator implements HealthIndicator {
  private final AxExecutorLifecycle lifecycle;

  public AxExecutorHealthIndicator(AxExecutorLifecycle lifecycle) {
    this.lifecycle = lifecycle;
  }

  @Override
  public Health health() {
    Optional<AxExecutor> running = lifecycle.executor();
    if (running.isEmpty()) {
      return Health.outOfService().withDetail("state", "stopped").withDetail("processors", lifecycle.processors())
          .build();
    }
    AxExecutor executor = running.get();
    ExecutorConnection.Snapshot c = lifecycle.connection();
    Health.Builder health = c.state() == ExecutorConnection.State.REGISTERED ? Health.up() : Health.down();
    health.withDetail("state", c.state().name().toLowerCase(java.util.Locale.ROOT))
        .withDetail("executorId", executor.executorId())
        .withDetail("processors", lifecycle.processors())
        .withDetail("since", c.since().toString());
    if (c.server() != null) {
      health.withDetail("server", c.server().toString());
    }
    if (c.error() != null) {
      health.withDetail("error", c.error());
    }
    ExecutorStats.Snapshot s = executor.stats();
    return health.withDetail("executed", s.executed()).withDetail("failed", s.failed())
        .withDetail("rejected", s.rejected()).withDetail("meanDurationMs", s.meanDurationMs()).build();
  }
}
