package ax.fleet;

import java.util.function.Predicate;

/**
 * Same-zone preference, shared by the strategies: when some executor in the preferred zone can take
 * work, only those are eligible; otherwise every executor that can take work is. Crossing zones costs
 * latency and traffic, but holding a task while another zone idles would cost more.
 */
final class ZonePreference {
  private ZonePreference() {
  }

  /** The eligibility test for one choice among {@code candidates}; {@code preferredZone} may be null. */
  static Predicate<ExecutorView> eligible(Iterable<ExecutorView> candidates, String preferredZone) {
    if (preferredZone != null) {
      for (ExecutorView view : candidates) {
        if (view.canTakeWork() && view.inZone(preferredZone)) {
          return v -> v.canTakeWork() && v.inZone(preferredZone);
        }
      }
    }
    return ExecutorView::canTakeWork;
  }
}
