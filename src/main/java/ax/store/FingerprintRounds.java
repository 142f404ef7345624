package ax.store;

import ax.task.NewTask;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Splits a batch into rounds for the set-wise fingerprint check of the batch insert: round k holds the
 * tasks whose fingerprint occurred k times earlier in the batch (tasks without one are in round 0).
 * A statement's check cannot see the rows that statement inserts, but the next statement's can; so the
 * k-th equal task is checked after the earlier ones were inserted or refused — the order two separate
 * requests would have. Almost every batch is one round.
 */
final class FingerprintRounds {
  private FingerprintRounds() {
  }

  /** The rounds of {@code batch}, each in request order; never an empty round. */
  static List<List<NewTask>> of(List<NewTask> batch) {
    Map<UUID, Integer> seen = new HashMap<>();
    List<List<NewTask>> rounds = new ArrayList<>();
    for (NewTask t : batch) {
      int round = t.fingerprint() == null ? 0 : seen.merge(t.fingerprint(), 1, Integer::sum) - 1;
      while (rounds.size() <= round) {
        rounds.add(new ArrayList<>());
      }
      rounds.get(round).add(t);
    }
    return rounds;
  }
}
