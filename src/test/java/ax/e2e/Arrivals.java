package ax.e2e;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * What a {@link Receiver} saw of a set of HTTP-target tasks, as the fault matrix counts it: never called
 * (lost), called early (before the trigger time, by the receiver's clock — the machine's true time, which
 * the database shares), and called more than once, split into re-runs ax accounts for (an earlier attempt
 * recorded {@code LOST} in {@code task_attempts}: its node died with the call in flight, the documented
 * at-least-once window) and runs twice (the same attempt called twice, or a second call nothing explains).
 *
 * @param lostAttempts {@code LOST} attempt rows per task id (absent: none)
 */
record Arrivals(int tasks, int lost, int runTwice, int atLeastOnceReruns, long early, List<Long> lateness) {

  static Arrivals of(Receiver receiver, Collection<Long> ids, Map<Long, Integer> lostAttempts) {
    int lost = 0;
    int twice = 0;
    int reruns = 0;
    long early = 0;
    List<Long> lateness = new ArrayList<>();
    for (long id : ids) {
      List<Receiver.Hit> hits = receiver.byTask.getOrDefault(id, List.of());
      if (hits.isEmpty()) {
        lost++;
        continue;
      }
      for (Receiver.Hit h : hits) {
        lateness.add(h.latenessMs());
        early += h.latenessMs() < 0 ? 1 : 0;
      }
      int extra = hits.size() - 1;
      boolean sameAttempt = hits.stream().mapToInt(Receiver.Hit::attempt).distinct().count() < hits.size();
      if (sameAttempt || extra > lostAttempts.getOrDefault(id, 0)) {
        twice++;
      } else if (extra > 0) {
        reruns++;
      }
    }
    return new Arrivals(ids.size(), lost, twice, reruns, early, lateness);
  }

  static Arrivals of(Receiver receiver, Collection<Long> ids) {
    return of(receiver, ids, Map.of());
  }

  /** The figures every row of these tasks reports (the report sums lost, run_twice, at_least_once_reruns). */
  Map<String, Object> figures() {
    return Map.of("tasks", tasks, "lost", lost, "run_twice", runTwice, "at_least_once_reruns", atLeastOnceReruns,
        "early", early, "lateness_p99_ms", FaultRow.percentile(lateness, 99),
        "lateness_max_ms", FaultRow.percentile(lateness, 100));
  }

  long p99() {
    return FaultRow.percentile(lateness, 99);
  }

  @Override
  public String toString() {
    return tasks + " tasks: lost " + lost + ", run twice " + runTwice + ", at-least-once re-runs " + atLeastOnceReruns
        + ", early calls " + early + ", lateness p99 " + FaultRow.percentile(lateness, 99) + " ms";
  }
}
