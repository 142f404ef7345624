package ax.fleet;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/**
 * R6's default strategy: pick an executor at random with probability proportional to
 * {@link ExecutorView#weight()}, so idle executors with short queues get most of the work while busy
 * ones still get a share, and no executor gets everything just because it answered last. Executors
 * with no free thread are never chosen; when none can take work the answer is empty.
 *
 * <p>Stateless apart from the random source, so one instance may serve every task type and thread.
 */
public final class WeightedRandomSelector implements ExecutorSelector {

  private final RandomGenerator random;
  private final String preferredZone;

  /** Uses {@link ThreadLocalRandom}; {@code preferredZone} may be null for no preference. */
  public WeightedRandomSelector(String preferredZone) {
    this(null, preferredZone);
  }

  /** For tests: a seeded source makes the draws repeatable. {@code random} need not be thread-safe
   * if the selector is used from one thread only. */
  public WeightedRandomSelector(RandomGenerator random, String preferredZone) {
    this.random = random;
    this.preferredZone = preferredZone;
  }

  @Override
  public Optional<String> choose(List<ExecutorView> candidates, String routingKey) {
    Predicate<ExecutorView> eligible = ZonePreference.eligible(candidates, preferredZone);
    double total = 0;
    for (ExecutorView view : candidates) {
      if (eligible.test(view)) {
        total += view.weight();
      }
    }
    if (total <= 0) {
      return Optional.empty();
    }
    double point = source().nextDouble() * total;
    ExecutorView last = null;
    for (ExecutorView view : candidates) {
      if (eligible.test(view)) {
        last = view;
        point -= view.weight();
        if (point < 0) {
          return Optional.of(view.executorId());
        }
      }
    }
    // Rounding can leave a sliver past the last weight; it belongs to the last eligible executor.
    return Optional.of(last.executorId());
  }

  private RandomGenerator source() {
    return random != null ? random : ThreadLocalRandom.current();
  }
}
