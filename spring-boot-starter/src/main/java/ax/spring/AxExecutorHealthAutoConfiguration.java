package ax.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The executor's health indicator, only in applications that have Spring Boot Actuator: the starter
 * does not bring actuator, it only fits in when it is there.
 */
@AutoConfiguration(after = AxExecutorAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
@ConditionalOnBean(AxExecutorLifecycle.class)
public class AxExecutorHealthAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "axExecutorHealthIndicator")
  public AxExecutorHealthIndicator axExecutorHealthIndicator(AxExecutorLifecycle lifecycle) {
    return new AxExecutorHealthIndicator(lifecycle);
  }
}
