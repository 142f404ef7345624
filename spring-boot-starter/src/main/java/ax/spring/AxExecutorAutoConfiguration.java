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

import java.time.Clock;

/**
 * Runs an ax executor in the application: {@code ax.executor.*} configures it, beans annotated
 * {@link AxProcessor} are its processors, {@link AxExecutorLifecycle} starts and drains it. Off with
 * {@code ax.executor.enabled=false}; an application that declares its own {@link AxExecutorLifecycle}
 * bean replaces this one.
 */
@AutoConfiguration
@ConditionalOnClass(AxExecutor.class)
@ConditionalOnProperty(prefix = AxExecutorProperties.PREFIX, name = "enabled", havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(AxExecutorProperties.class)
public class AxExecutorAutoConfiguration {

  /**
   * Checks Netty and every property now, while the context is being built, so a bad setting stops the
   * startup before other beans start; the processors are collected once all singletons exist.
   */
  @Bean
  @ConditionalOnMissingBean
  public AxExecutorLifecycle axExecutorLifecycle(AxExecutorProperties properties, ConfigurableListableBeanFactory beans,
                                                 ObjectProvider<ExecutionRecorder> recorder,
                                                 ObjectProvider<ExecutorListener> listener,
                                                 ObjectProvider<AxExecutorBuilderCustomizer> customizers) {
    NettyCompatibility.check(AxExecutorAutoConfiguration.class.getClassLoader());
    AxExecutor.Builder builder = ExecutorBuilderFactory.create(properties);
    recorder.ifUnique(builder::recorder);
    customizers.orderedStream().forEach(c -> c.customize(builder));
    ExecutorConnection connection = new ExecutorConnection(listener.getIfUnique(() -> new ExecutorListener() { }),
        Clock.systemUTC());
    builder.listener(connection);
    return new AxExecutorLifecycle(builder, new ProcessorScanner(beans)::scan, connection,
        properties.getDrainTimeout());
  }
}
