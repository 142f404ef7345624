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
    String v = raw(name);
    remember(name, v == null ? fallback : v, v != null);
    return v == null ? fallback : v;
  }

  /** Every setting read so far, in reading order, as it resolved. */
  List<AxConfig.Setting> readings() {
    return List.copyOf(readings.values());
  }

  private String raw(String name) {
    String v = env.get(name);
    return v == null || v.isBlank() ? null : v.trim();
  }

  private void remember(String name, Object value, boolean set) {
    readings.put(name, new AxConfig.Setting(name, value == null ? null : value.toString(), set));
  }

  int intIn(String name, int fallback, int min, int max) {
    return (int) longIn(name, fallback, min, max);
  }

  long longIn(String name, long fallback, long min, long max) {
    String v = raw(name);
    remember(name, v == null ? fallback : v, v != null);
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
    String v = raw(name);
    remember(name, v == null ? fallback : v, v != null);
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
