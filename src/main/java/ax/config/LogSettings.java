package ax.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Level;

/**
 * How a process of ax logs: {@code AX_LOG_FORMAT} ({@code text}: one line per record; {@code json}: one
 * JSON object per line, for containers) and {@code AX_LOG_LEVEL} (default INFO). Read apart from
 * {@link AxConfig} and before any command runs, because every command logs, not only a node; a bad value
 * fails the start with a message naming the variable, like every other setting.
 */
public record LogSettings(Format format, Level level) {

  public enum Format { TEXT, JSON }

  /** Names an operator may write (any case); the java.util.logging names are accepted too. */
  private static final Map<String, Level> LEVELS = Map.ofEntries(
      Map.entry("ERROR", Level.SEVERE), Map.entry("WARN", Level.WARNING), Map.entry("INFO", Level.INFO),
      Map.entry("DEBUG", Level.FINE), Map.entry("TRACE", Level.FINEST),
      Map.entry("SEVERE", Level.SEVERE), Map.entry("WARNING", Level.WARNING), Map.entry("CONFIG", Level.CONFIG),
      Map.entry("FINE", Level.FINE), Map.entry("FINER", Level.FINER), Map.entry("FINEST", Level.FINEST),
      Map.entry("OFF", Level.OFF));

  public static LogSettings defaults() {
    return new LogSettings(Format.TEXT, Level.INFO);
  }

  public static LogSettings fromEnv(Map<String, String> env) {
    EnvReader r = new EnvReader(env);
    return new LogSettings(r.parsed("AX_LOG_FORMAT", Format.TEXT, LogSettings::format),
        r.parsed("AX_LOG_LEVEL", Level.INFO, LogSettings::level));
  }

  private static Format format(String value) {
    try {
      return Format.valueOf(value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("expected text or json");
    }
  }

  private static Level level(String value) {
    Level level = LEVELS.get(value.toUpperCase(Locale.ROOT));
    if (level == null) {
      throw new IllegalArgumentException("expected one of ERROR, WARN, INFO, DEBUG, TRACE, OFF (or a "
          + "java.util.logging name: " + String.join(", ", Arrays.asList("SEVERE", "WARNING", "CONFIG", "FINE",
          "FINER", "FINEST")) + ")");
    }
    return level;
  }
}
