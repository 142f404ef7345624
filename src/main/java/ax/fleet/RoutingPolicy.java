package ax.fleet;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Which {@link ExecutorSelector} a task type uses: a default strategy plus per-task-type overrides,
 * read from two config strings, e.g. default {@code weighted_random} and overrides
 * {@code "order.close=consistent_hash,coupon.grant=weighted_random"}. Invalid text fails at start with
 * a message that quotes the offending part (so a typo cannot silently route by the default).
 *
 * <p>One selector instance per strategy is shared by all task types, so the consistent-hash ring
 * cache is built once, not once per type. Immutable and thread-safe.
 */
public final class RoutingPolicy {

  /** The strategies, by their config names. */
  public enum Strategy {
    WEIGHTED_RANDOM("weighted_random"),
    CONSISTENT_HASH("consistent_hash");

    private final String configName;

    Strategy(String configName) {
      this.configName = configName;
    }

    public String configName() {
      return configName;
    }

    /** Reads a config name, ignoring case and surrounding blanks. */
    public static Strategy parse(String text) {
      String name = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
      for (Strategy strategy : values()) {
        if (strategy.configName.equals(name)) {
          return strategy;
        }
      }
      throw new IllegalArgumentException("routing strategy \"" + text + "\" is unknown; expected "
          + WEIGHTED_RANDOM.configName + " or " + CONSISTENT_HASH.configName);
    }
  }

  private final Strategy defaultStrategy;
  private final Map<String, Strategy> overrides;
  private final Map<Strategy, ExecutorSelector> selectors;

  /**
   * @param defaultStrategy the strategy's config name
   * @param overrides       {@code taskType=strategy} pairs separated by commas; null or blank for none
   * @param preferredZone   this node's zone for same-zone preference; null for none
   */
  public static RoutingPolicy parse(String defaultStrategy, String overrides, String preferredZone) {
    Map<Strategy, ExecutorSelector> selectors = new EnumMap<>(Strategy.class);
    selectors.put(Strategy.WEIGHTED_RANDOM, new WeightedRandomSelector(preferredZone));
    selectors.put(Strategy.CONSISTENT_HASH, new ConsistentHashSelector(preferredZone));
    return new RoutingPolicy(Strategy.parse(defaultStrategy), parseOverrides(overrides), selectors);
  }

  /** For tests and wiring: explicit strategies and selectors (one per strategy). */
  public RoutingPolicy(Strategy defaultStrategy, Map<String, Strategy> overrides,
      Map<Strategy, ExecutorSelector> selectors) {
    this.defaultStrategy = Objects.requireNonNull(defaultStrategy, "defaultStrategy");
    this.overrides = Collections.unmodifiableMap(new LinkedHashMap<>(overrides));
    for (Strategy strategy : Strategy.values()) {
      if (!selectors.containsKey(strategy)) {
        throw new IllegalArgumentException("no selector for strategy " + strategy.configName);
      }
    }
    this.selectors = new EnumMap<>(selectors);
  }

  public Strategy strategyFor(String taskType) {
    return overrides.getOrDefault(taskType, defaultStrategy);
  }

  public ExecutorSelector selectorFor(String taskType) {
    return selectors.get(strategyFor(taskType));
  }

  public Strategy defaultStrategy() {
    return defaultStrategy;
  }

  /** Task type → strategy, in the order written. */
  public Map<String, Strategy> overrides() {
    return overrides;
  }

  static Map<String, Strategy> parseOverrides(String text) {
    Map<String, Strategy> parsed = new LinkedHashMap<>();
    if (text == null || text.isBlank()) {
      return parsed;
    }
    for (String entry : text.split(",", -1)) {
      String trimmed = entry.trim();
      if (trimmed.isEmpty()) {
        throw new IllegalArgumentException("routing overrides \"" + text + "\" contain an empty entry (a stray comma?)");
      }
      int eq = trimmed.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("routing override \"" + trimmed
            + "\" has no '='; expected taskType=strategy, e.g. order.close=consistent_hash");
      }
      String taskType = trimmed.substring(0, eq).trim();
      if (taskType.isEmpty() || taskType.chars().anyMatch(Character::isWhitespace)) {
        throw new IllegalArgumentException("routing override \"" + trimmed + "\" has an empty or blank-containing task type");
      }
      Strategy strategy;
      try {
        strategy = Strategy.parse(trimmed.substring(eq + 1));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("routing override for \"" + taskType + "\": " + e.getMessage(), e);
      }
      if (parsed.put(taskType, strategy) != null) {
        throw new IllegalArgumentException("routing override for \"" + taskType + "\" is given twice");
      }
    }
    return parsed;
  }
}
