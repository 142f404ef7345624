package ax.spring;

import ax.executor.AxExecutor;
import ax.executor.ExecutionRecorder;
import ax.executor.ExecutorListener;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

import java.time.Clock;
import java.time.Duration;

/**
 * Runs an ax executor in the application: {@code ax.executor.*} configures it, beans annotated
 * {@link AxProcessor} are its processors, {@link AxExecutorLifecycle} starts and drains it. Off with
 * {@code ax.executor.enabled=false}.
 */
@AutoConfiguration
@ConditionalOnClass(AxExecutor.class)
@ConditionalOnProperty(prefix = AxExecutorProperties.PREFIX, name = "enabled", havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(AxExecutorProperties.class)
public class AxExecutorAutoConfiguration {
  private static final Log LOG = LogFactory.getLog(AxExecutorAutoConfiguration.class);
  private static final String SHUTDOWN_PHASE = "spring.lifecycle.timeout-per-shutdown-phase";

  /**
   * Checks Netty and every property now, while the context is being built, so a bad setting stops the
   * startup before other beans start; the processors are collected once all singletons exist.
   */
  @Bean
  @ConditionalOnMissingBean
  public AxExecutorLifecycle axExecutorLifecycle(AxExecutorProperties properties, ConfigurableListableBeanFactory beans,
                                                 ObjectProvider<ExecutionRecorder> recorder,
                                                 ObjectProvider<ExecutorListener> listener,
                                                 ObjectProvider<AxExecutorBuilderCustomizer> customizers,
                                                 Environment environment) {
    NettyCompatibility.check(AxExecutorAutoConfiguration.class.getClassLoader());
    AxExecutor.Builder builder = ExecutorBuilderFactory.create(properties);
    warnIfTheDrainOutlastsTheShutdownPhase(properties.getDrainTimeout(), environment);
    recorder.ifUnique(builder::recorder);
    customizers.orderedStream().forEach(c -> c.customize(builder));
    ExecutorConnection connection = new ExecutorConnection(listener.getIfUnique(() -> new ExecutorListener() { }),
        Clock.systemUTC());
    builder.listener(connection);
    return new AxExecutorLifecycle(builder, new ProcessorScanner(beans)::scan, connection,
        properties.getDrainTimeout());
  }

  /**
   * Spring waits for a shutdown phase at most {@value #SHUTDOWN_PHASE} (30 s by default), then goes on
   * closing beans, the ones processors use included. A drain allowed to last as long or longer can be cut
   * off that way; it is the application's choice, so a warning rather than a failure.
   */
  static void warnIfTheDrainOutlastsTheShutdownPhase(Duration drainTimeout, Environment environment) {
    Duration phase = Binder.get(environment).bind(SHUTDOWN_PHASE, Duration.class).orElse(Duration.ofSeconds(30));
    if (drainTimeout.compareTo(phase) >= 0) {
      LOG.warn("ax.executor.drain-timeout (" + drainTimeout + ") is not below " + SHUTDOWN_PHASE + " (" + phase
          + "): Spring may stop waiting for the drain and close the beans the processors use while tasks still run."
          + " Lower the one or raise the other.");
    }
  }
}
