package ax.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code --name value}, {@code --name=value}, bare {@code --flag}, and repeatable {@code --env K=V}. */
public final class Options {
  private static final java.util.Set<String> BOOLEAN = java.util.Set.of("notify", "fire", "keep-db", "cluster-wal", "help", "aligned", "recurring-aligned", "restart");

  private final Map<String, String> values = new LinkedHashMap<>();
  private final Map<String, String> env = new LinkedHashMap<>();
  private final List<String> raw;

  public Options(List<String> args) {
    this.raw = List.copyOf(args);
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument '" + a + "' (flags look like --name value)");
      }
      String name = a.substring(2);
      String value;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else if (BOOLEAN.contains(name)) {
        value = "true";
      } else {
        if (i + 1 >= args.size()) {
          throw new IllegalArgumentException("--" + name + " needs a value");
        }
        value = args.get(++i);
      }
      if (name.equals("env")) {
        int e = value.indexOf('=');
        if (e <= 0) {
          throw new IllegalArgumentException("--env expects K=V, got '" + value + "'");
        }
        env.put(value.substring(0, e), value.substring(e + 1));
      } else {
        values.put(name, value);
      }
    }
  }

  public String string(String name, String def) {
    return values.getOrDefault(name, def);
  }

  public long longValue(String name, long def) {
    String v = values.get(name);
    if (v == null) {
      return def;
    }
    try {
      return Long.parseLong(v.replace("_", "").replace(",", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " expects an integer, got '" + v + "'");
    }
  }

  public int intValue(String name, int def) {
    return Math.toIntExact(longValue(name, def));
  }

  public double doubleValue(String name, double def) {
    String v = values.get(name);
    if (v == null) {
      return def;
    }
    try {
      return Double.parseDouble(v.replace("_", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " expects a number, got '" + v + "'");
    }
  }

  public boolean flag(String name) {
    return Boolean.parseBoolean(values.getOrDefault(name, "false"));
  }

  /** Extra environment for the server, in the order given (later wins). */
  public Map<String, String> env() {
    return env;
  }

  public boolean has(String name) {
    return values.containsKey(name);
  }

  /** Sets a default unless the user gave the flag. */
  public void defaultValue(String name, String value) {
    values.putIfAbsent(name, value);
  }

  public void defaultEnv(String key, String value) {
    env.putIfAbsent(key, value);
  }

  /** A copy with {@code name} set to {@code value} (for runs a composite scenario makes with fixed flags). */
  public Options with(String name, String value) {
    Options o = new Options(raw);
    o.values.put(name, value);
    return o;
  }

  /** A copy whose server environment has {@code key} = {@code value} unless {@code --env} set it. */
  public Options withDefaultEnv(String key, String value) {
    Options o = new Options(raw);
    o.values.putAll(values);
    o.env.putAll(env);
    o.env.putIfAbsent(key, value);
    return o;
  }

  public String commandLine() {
    return String.join(" ", new ArrayList<>(raw));
  }
}
