package ax.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Reads typed values from environment variables; every failure names the variable. It remembers each
 * value it handed out, so {@code ax config} prints exactly what the settings resolved to.
 */
final class EnvReader {
  private final Map<String, String> env;
  private final Map<String, AxConfig.Setting> readings = new LinkedHashMap<>();

  EnvReader(Map<String, String> env) {
    this.env = env;
  }

  String string(String name, String fallback) {
    String v = read(name, fallback);
    return v == null ? fallback : v;
  }

  /** Every setting read so far, in reading order, as it resolved. */
  List<AxConfig.Setting> readings() {
    return List.copyOf(readings.values());
  }

  /**
   * The variable's trimmed value, null when unset or blank; remembered as read, with {@code fallback}
   * standing for it when unset (a value later refused is remembered as given, the read then throws).
   */
  private String read(String name, Object fallback) {
    String v = env.get(name);
    v = v == null || v.isBlank() ? null : v.trim();
    Object resolved = v == null ? fallback : v;
    readings.put(name, new AxConfig.Setting(name, resolved == null ? null : resolved.toString(), v != null));
    return v;
  }

  int intIn(String name, int fallback, int min, int max) {
    return (int) longIn(name, fallback, min, max);
  }

  long longIn(String name, long fallback, long min, long max) {
    String v = read(name, fallback);
    if (v == null) {
      return fallback;
    }
    long parsed;
    try {
      parsed = Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new ConfigException(name + "=" + v + " is not a whole number");
    }
    if (parsed < min || parsed > max) {
      throw new ConfigException(name + "=" + v + " is outside " + min + ".." + max);
    }
    return parsed;
  }

  <T> T parsed(String name, T fallback, Function<String, T> parser) {
    String v = read(name, fallback);
    if (v == null) {
      return fallback;
    }
    try {
      return parser.apply(v);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(name + "=" + v + " is invalid: " + e.getMessage());
    }
  }
}
