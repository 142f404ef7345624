package ax.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WeightedRandomSelectorTest {

  private static final int DRAWS = 10_000;

  static ExecutorView view(String id, String zone, int free, int backlog) {
    return new ExecutorView(id, zone, free, backlog, 0.1, true);
  }

  private static Map<String, Integer> draw(ExecutorSelector selector, List<ExecutorView> candidates) {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < DRAWS; i++) {
      String chosen = selector.choose(candidates, "task-" + i).orElseThrow();
      counts.merge(chosen, 1, Integer::sum);
    }
    return counts;
  }

  @Test
  void theIdleExecutorGetsMostOfTheWork() {
    // A: weight 16 / 1 = 16; B: weight 2 / 6 ≈ 0.33 → A's share ≈ 98 %.
    List<ExecutorView> fleet = List.of(view("A", null, 16, 0), view("B", null, 2, 5));

    Map<String, Integer> counts = draw(new WeightedRandomSelector(new Random(42), null), fleet);

    assertTrue(counts.get("A") > 0.90 * DRAWS, counts.toString());
    assertTrue(counts.getOrDefault("B", 0) > 0, "B still gets a share: " + counts);
  }

  @Test
  void sharesFollowTheWeights() {
    // weights 8, 4 and 4 / (1 + 1) = 2 → expected shares 8/14, 4/14, 2/14.
    List<ExecutorView> fleet = List.of(view("A", null, 8, 0), view("B", null, 4, 0), view("C", null, 4, 1));

    Map<String, Integer> counts = draw(new WeightedRandomSelector(new Random(7), null), fleet);

    assertEquals(8.0 / 14, counts.get("A") / (double) DRAWS, 0.02, counts.toString());
    assertEquals(4.0 / 14, counts.get("B") / (double) DRAWS, 0.02, counts.toString());
    assertEquals(2.0 / 14, counts.get("C") / (double) DRAWS, 0.02, counts.toString());
  }

  @Test
  void anExecutorWithNoFreeThreadIsNeverChosen() {
    List<ExecutorView> fleet = List.of(view("busy", null, 0, 0), view("idle", null, 1, 50));

    Map<String, Integer> counts = draw(new WeightedRandomSelector(new Random(1), null), fleet);

    assertEquals(Map.of("idle", DRAWS), counts);
  }

  @Test
  void anUnavailableExecutorIsNeverChosen() {
    List<ExecutorView> fleet = List.of(new ExecutorView("suspect", null, 32, 0, 0.1, false), view("ok", null, 1, 0));

    assertEquals(Map.of("ok", DRAWS), draw(new WeightedRandomSelector(new Random(1), null), fleet));
  }

  @Test
  void whenEveryExecutorIsBusyTheTaskIsHeldNotForced() {
    List<ExecutorView> fleet = List.of(view("A", null, 0, 3), view("B", null, 0, 0));
    WeightedRandomSelector selector = new WeightedRandomSelector(new Random(1), null);

    assertEquals(Optional.empty(), selector.choose(fleet, "t"));
    assertEquals(Optional.empty(), selector.choose(List.of(), "t"));
  }

  @Test
  void theSameZoneIsPreferredWhileItHasCapacity() {
    List<ExecutorView> fleet = List.of(view("far", "z2", 64, 0), view("near", "z1", 1, 3));

    Map<String, Integer> counts = draw(new WeightedRandomSelector(new Random(3), "z1"), fleet);

    assertEquals(Map.of("near", DRAWS), counts);
  }

  @Test
  void anotherZoneTakesOverWhenTheSameZoneIsBusy() {
    List<ExecutorView> fleet = List.of(view("far", "z2", 4, 0), view("near", "z1", 0, 3),
        new ExecutorView("near-down", "z1", 8, 0, 0.1, false));

    Map<String, Integer> counts = draw(new WeightedRandomSelector(new Random(3), "z1"), fleet);

    assertEquals(Map.of("far", DRAWS), counts);
  }

  @Test
  void withoutAnInjectedSourceItStillChoosesAmongEligibleExecutors() {
    List<ExecutorView> fleet = List.of(view("A", null, 2, 0), view("B", null, 0, 0));

    assertEquals(Optional.of("A"), new WeightedRandomSelector(null).choose(fleet, "t"));
  }
}
