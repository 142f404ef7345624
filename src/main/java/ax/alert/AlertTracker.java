package ax.alert;

import ax.alert.Observation.Sample;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The state of every alert, one per (rule, key), as Prometheus keeps it:
 * <pre>
 *   inactive ──holds──▶ pending ──held for `for`──▶ firing ──stops holding──▶ (resolved) inactive
 *       ▲                  │ stops holding                      (`for` = 0: straight to firing)
 *       └──────────────────┘
 * </pre>
 * Entering firing and leaving it are the two transitions that make a message ({@link Fire},
 * {@link Resolve}): one of each per episode. "Stops holding" is known only from a complete
 * {@link Observation}; an incomplete one leaves unlisted alerts as they are. Firing alerts read back
 * from PostgreSQL at a term's start are {@link #restoreFiring restored}, so a new leader neither fires
 * them again nor forgets to resolve them. Given the time; owned by one verticle.
 */
public final class AlertTracker {
  /** A transition the caller must carry out (write to PostgreSQL, which queues the message). */
  public sealed interface Transition permits Fire, Resolve {
    AlertRule rule();

    String key();
  }

  /** The alert starts firing; {@code startedAtMs} is when its condition began to hold. */
  public record Fire(AlertRule rule, String key, Sample sample, long startedAtMs) implements Transition {
  }

  /** The alert stops firing; {@code lastValue} is what it last showed (null when unknown). */
  public record Resolve(AlertRule rule, String key, Double lastValue) implements Transition {
  }

  private record State(boolean firing, long sinceMs, Sample last) {
  }

  private final Map<AlertRule, Map<String, State>> states = new EnumMap<>(AlertRule.class);

  /** An alert PostgreSQL says is firing (this node did not see it start). */
  public void restoreFiring(AlertRule rule, String key, long startedAtMs, Double value) {
    Sample last = value == null ? null : new Sample(value, Map.of(), "");
    of(rule).put(key, new State(true, startedAtMs, last));
  }

  /** What changes with {@code o} at {@code nowMs}, given the rule's {@code for} duration. */
  public List<Transition> observe(Observation o, long nowMs, long forMs) {
    Map<String, State> byKey = of(o.rule());
    List<Transition> out = new ArrayList<>();
    o.holding().forEach((key, sample) -> {
      State s = byKey.get(key);
      long since = s == null ? nowMs : s.sinceMs();
      boolean firing = s != null && s.firing();
      if (!firing && nowMs - since >= forMs) {
        out.add(new Fire(o.rule(), key, sample, since));
        firing = true;
      }
      byKey.put(key, new State(firing, since, sample));
    });
    if (o.complete()) {
      for (Iterator<Map.Entry<String, State>> it = byKey.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<String, State> e = it.next();
        if (!o.holding().containsKey(e.getKey())) {
          if (e.getValue().firing()) {
            Sample last = e.getValue().last();
            out.add(new Resolve(o.rule(), e.getKey(), last == null ? null : last.value()));
          }
          it.remove();
        }
      }
    }
    return out;
  }

  /**
   * {@code t} could not be written: take it back, so the next evaluation makes it again (a Fire goes back
   * to pending since the same time; a Resolve back to firing).
   */
  public void undo(Transition t) {
    Map<String, State> byKey = of(t.rule());
    if (t instanceof Fire f) {
      byKey.put(f.key(), new State(false, f.startedAtMs(), f.sample()));
    } else if (t instanceof Resolve r) {
      byKey.put(r.key(), new State(true, Long.MIN_VALUE, null));
    }
  }

  /** Forgets every alert of {@code rule} (its owner stops judging it: a term ended). */
  public void clear() {
    states.clear();
  }

  public boolean isFiring(AlertRule rule, String key) {
    State s = of(rule).get(key);
    return s != null && s.firing();
  }

  public boolean isPending(AlertRule rule, String key) {
    State s = of(rule).get(key);
    return s != null && !s.firing();
  }

  private Map<String, State> of(AlertRule rule) {
    return states.computeIfAbsent(rule, r -> new HashMap<>());
  }
}
