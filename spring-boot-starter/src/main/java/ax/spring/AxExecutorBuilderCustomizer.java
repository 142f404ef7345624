package ax.spring;

import ax.executor.AxExecutor;

/**
 * A bean of this type adjusts the executor's builder after {@code ax.executor.*} was applied, for what
 * has no property: a shared {@code Vertx}, a {@code Clock}. Processors come from {@link AxProcessor},
 * the recorder from an {@code ExecutionRecorder} bean and connection events go to an
 * {@code ExecutorListener} bean; a listener set here is replaced, so that the health indicator keeps
 * seeing the connection.
 */
@FunctionalInterface
public interface AxExecutorBuilderCustomizer {
  void customize(AxExecutor.Builder builder);
}
