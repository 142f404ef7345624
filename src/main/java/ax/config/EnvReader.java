package ax.config;

import java.util.Map;
import java.util.function.Function;

/** Reads typed values from environment variables; every failure names the variable. */
final class EnvReader {
  private final Map<String, String> env;

  EnvReader(Map<String, String> env) {
    this.env = env;
  }

  String string(String name, String fallback) {
    String v = env.get(name);
    return v == null || v.isBlank() ? fallback : v.trim();
  }

  int intIn(String name, int fallback, int min, int max) {
    return (int) longIn(name, fallback, min, max);
  }

  long longIn(String name, long fallback, long min, long max) {
    String v = string(name, null);
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
    String v = string(name, null);
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
