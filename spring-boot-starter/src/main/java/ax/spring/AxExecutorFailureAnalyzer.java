package ax.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns an {@link AxExecutorConfigurationException}, wherever it sits in the cause chain (Spring wraps
 * it in bean creation or lifecycle exceptions), into Spring Boot's "APPLICATION FAILED TO START" report:
 * what is wrong, and what to change.
 */
class AxExecutorFailureAnalyzer extends AbstractFailureAnalyzer<AxExecutorConfigurationException> {
  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, AxExecutorConfigurationException cause) {
    return new FailureAnalysis(cause.description(), cause.action(), cause);
  }
}
