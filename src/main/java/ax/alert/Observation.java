package ax.alert;

import java.util.Map;

/**
 * What one evaluation found for one rule: the keys for which the condition holds now, each with its
 * value, labels and the summary a message would carry. {@code complete}: a key not listed is known not
 * to hold (it resolves); when false, what is not listed is unknown and keeps its state — a new leader
 * that has not yet collected a rule's whole look-back does not resolve what its predecessor fired.
 */
public record Observation(AlertRule rule, Map<String, Sample> holding, boolean complete) {
  public Observation {
    holding = Map.copyOf(holding);
  }

  /** The figure, labels and text of one key for which a rule's condition holds. */
  public record Sample(double value, Map<String, String> labels, String summary) {
    public Sample {
      labels = Map.copyOf(labels);
    }
  }

  public static Observation none(AlertRule rule, boolean complete) {
    return new Observation(rule, Map.of(), complete);
  }

  public static Observation one(AlertRule rule, Sample sample) {
    return new Observation(rule, Map.of("", sample), true);
  }
}
