package ax.executor;


import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/** Worker threads per pool. Defaults: high 8, default 16, slow 8. */
public record PoolSizes(int high, int normal, int slow) {
  public static final PoolSizes DEFAULTS = new PoolSizes(8, 16, 8);

  public PoolSizes {
    if (high < 1 || normal < 1 || slow < 1) {
      throw new IllegalArgumentException("every pool needs at least one thread (high=" + high + ", default="
          + normal + ", slow=" + slow + ")");
    }
  }

  public int of(Pool pool) {
    return switch (pool) {
      case HIGH -> high;
      case DEFAULT -> normal;
      case SLOW -> slow;
    };
  }

  public int total() {
    return high + normal + slow;
  }

  public PoolSizes with(Pool pool, int size) {
    return new PoolSizes(pool == Pool.HIGH ? size : high, pool == Pool.DEFAULT ? size : normal,
        pool == Pool.SLOW ? size : slow);
  }

  /** The register message's {@code capacity}: threads by pool wire name. */
  Map<String, Integer> byWireName() {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (Pool p : Pool.values()) {
      out.put(p.wireName(), of(p));
    }
    return out;
  }

  /** Parses {@code high=8,default=16,slow=8}; pools not named keep their default size. */
  public static PoolSizes parse(String spec) {
    Map<Pool, Integer> sizes = new EnumMap<>(Pool.class);
    if (spec == null || spec.isBlank()) {
      throw new IllegalArgumentException("pool spec is blank");
    }
    for (String part : spec.split(",")) {
      String[] kv = part.trim().split("=", 2);
      Pool pool = kv.length == 2 ? Pool.fromWire(kv[0].trim()) : null;
      if (pool == null) {
        throw new IllegalArgumentException("bad pool entry '" + part.trim() + "': expected high|default|slow=N");
      }
      try {
        sizes.put(pool, Integer.parseInt(kv[1].trim()));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("bad pool size in '" + part.trim() + "'");
      }
    }
    PoolSizes result = DEFAULTS;
    for (Map.Entry<Pool, Integer> e : sizes.entrySet()) {
      result = result.with(e.getKey(), e.getValue());
    }
    return result;
  }
}
