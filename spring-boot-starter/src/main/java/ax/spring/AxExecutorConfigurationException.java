package ax.spring;

/**
 * The executor cannot be set up as configured. Thrown while the context starts, so the application
 * stops with {@link #description()} (which names the property or bean at fault) and {@link #action()}
 * printed by {@link AxExecutorFailureAnalyzer} instead of running without its executor.
 */
public class AxExecutorConfigurationException extends RuntimeException {
  private final String action;

  public AxExecutorConfigurationException(String description, String action) {
    this(description, action, null);
  }

  public AxExecutorConfigurationException(String description, String action, Throwable cause) {
    super(description, cause);
    this.action = action;
  }

  /** A property of {@code ax.executor.*} that is missing or bad. */
  static AxExecutorConfigurationException property(String name, String problem) {
    return property(name, problem, null);
  }

  static AxExecutorConfigurationException property(String name, String problem, Throwable cause) {
    return new AxExecutorConfigurationException(AxExecutorProperties.PREFIX + "." + name + " " + problem,
        "Fix " + AxExecutorProperties.PREFIX + "." + name + " (application.yml, or the environment as AX_EXECUTOR_"
            + name.toUpperCase(java.util.Locale.ROOT).replace('-', '_').replace('.', '_')
            + "), or set ax.executor.enabled=false to run this application without an ax executor.", cause);
  }

  public String description() {
    return getMessage();
  }

  public String action() {
    return action;
  }
}
