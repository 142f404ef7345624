package ax.config;

/** A setting is missing or wrong; the message names the variable and says what is expected. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }
}
