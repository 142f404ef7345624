package ax.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ConsistentHashSelectorTest {

  private static final int KEYS = 10_000;

  private static ExecutorView view(String id, int free, int backlog, double cpu) {
    return new ExecutorView(id, null, free, backlog, cpu, true);
  }

  private static List<ExecutorView> equalFleet(int size) {
    List<ExecutorView> fleet = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      fleet.add(view("ex-" + i, 8, 0, 0.2));
    }
    return fleet;
  }

  private static Map<String, String> assign(ExecutorSelector selector, List<ExecutorView> fleet) {
    Map<String, String> owners = new HashMap<>();
    for (int i = 0; i < KEYS; i++) {
      String key = Long.toString(7_421_394_872_192_303_104L + i);
      owners.put(key, selector.choose(fleet, key).orElseThrow());
    }
    return owners;
  }

  private static Map<String, Integer> countByExecutor(Map<String, String> owners) {
    Map<String, Integer> counts = new HashMap<>();
    owners.values().forEach(owner -> counts.merge(owner, 1, Integer::sum));
    return counts;
  }

  @Test
  void theSameKeyAlwaysGoesToTheSameExecutorEvenAcrossInstances() {
    List<ExecutorView> fleet = equalFleet(5);

    Map<String, String> first = assign(new ConsistentHashSelector(null), fleet);
    List<ExecutorView> reordered = new ArrayList<>(fleet);
    Collections.reverse(reordered);
    Map<String, String> again = assign(new ConsistentHashSelector(null), reordered);

    assertEquals(first, again);
    assertEquals(5, countByExecutor(first).size(), "every executor owns some keys");
  }

  @Test
  void removingAnExecutorRemapsOnlyItsOwnKeys() {
    List<ExecutorView> fleet = equalFleet(5);
    ConsistentHashSelector selector = new ConsistentHashSelector(null);
    Map<String, String> before = assign(selector, fleet);

    Map<String, String> after = assign(selector, fleet.subList(0, 4)); // ex-4 leaves

    int kept = 0;
    int others = 0;
    for (Map.Entry<String, String> e : before.entrySet()) {
      if (!e.getValue().equals("ex-4")) {
        others++;
        kept += e.getValue().equals(after.get(e.getKey())) ? 1 : 0;
      } else {
        assertNotEquals("ex-4", after.get(e.getKey()));
      }
    }
    // Equal weights: the survivors' points do not move at all, so none of their keys do.
    assertEquals(others, kept);
  }

  @Test
  void removingTheHeaviestExecutorStillKeepsMostOtherKeysInPlace() {
    // Removing the heaviest changes the normalisation, so the survivors' point counts grow; their old
    // points stay where they were, so most keys still do not move.
    List<ExecutorView> fleet = List.of(view("a", 16, 0, 0.2), view("b", 8, 0, 0.2), view("c", 6, 0, 0.2),
        view("d", 4, 1, 0.2));
    ConsistentHashSelector selector = new ConsistentHashSelector(null);
    Map<String, String> before = assign(selector, fleet);

    Map<String, String> after = assign(selector, fleet.subList(1, 4));

    long others = before.values().stream().filter(owner -> !owner.equals("a")).count();
    long kept = before.entrySet().stream()
        .filter(e -> !e.getValue().equals("a") && e.getValue().equals(after.get(e.getKey()))).count();
    assertTrue(kept >= 0.7 * others, kept + " of " + others + " kept");
  }

  @Test
  void aHeavierExecutorOwnsMoreKeys() {
    List<ExecutorView> fleet = List.of(view("big", 16, 0, 0.2), view("small", 4, 0, 0.2));

    Map<String, Integer> counts = countByExecutor(assign(new ConsistentHashSelector(null), fleet));

    assertTrue(counts.get("big") > 2 * counts.get("small"), counts.toString());
  }

  @Test
  void aHotCpuExecutorGetsFewerKeys() {
    List<ExecutorView> fleet = List.of(view("cool", 8, 0, 0.3), view("hot", 8, 0, 0.95));
    ConsistentHashSelector selector = new ConsistentHashSelector(null);

    Map<String, Integer> counts = countByExecutor(assign(selector, fleet));

    assertEquals(Map.of("cool", 100, "hot", 70), selector.virtualNodes(fleet));
    assertTrue(counts.get("hot") < counts.get("cool"), counts.toString());
  }

  @Test
  void virtualNodesFollowTheWeightWithAtLeastOnePerExecutorThatHasCapacity() {
    List<ExecutorView> fleet = List.of(view("a", 16, 0, 0.2), view("b", 8, 0, 0.2), view("c", 1, 200, 0.2),
        view("busy", 0, 0, 0.2));

    assertEquals(Map.of("a", 100, "b", 50, "c", 1), new ConsistentHashSelector(null).virtualNodes(fleet));
  }

  @Test
  void lookupWalksPastUnavailableExecutorsToTheNextOnTheRing() {
    List<ExecutorView> fleet = equalFleet(5);
    ConsistentHashSelector selector = new ConsistentHashSelector(null);
    String key = "7421394872192303104";
    String owner = selector.choose(fleet, key).orElseThrow();

    List<ExecutorView> withOwnerDown = new ArrayList<>();
    for (ExecutorView v : fleet) {
      withOwnerDown.add(v.executorId().equals(owner)
          ? new ExecutorView(owner, null, v.freeThreads(), v.backlog(), v.cpuLoad(), false) : v);
    }
    List<ExecutorView> withoutOwner = fleet.stream().filter(v -> !v.executorId().equals(owner)).toList();

    String next = selector.choose(withOwnerDown, key).orElseThrow();
    assertNotEquals(owner, next);
    // Walking past the owner's points lands where the key would go if the owner had left the ring.
    assertEquals(new ConsistentHashSelector(null).choose(withoutOwner, key), Optional.of(next));
  }

  @Test
  void whenNoExecutorCanTakeWorkTheAnswerIsEmpty() {
    List<ExecutorView> fleet = List.of(new ExecutorView("a", null, 8, 0, 0.2, false), view("b", 0, 4, 0.2));
    ConsistentHashSelector selector = new ConsistentHashSelector(null);

    assertEquals(Optional.empty(), selector.choose(fleet, "k"));
    assertEquals(Optional.empty(), selector.choose(List.of(), "k"));
  }

  @Test
  void theRingIsRebuiltOnlyWhenMembershipOrWeightsChange() {
    List<ExecutorView> fleet = equalFleet(3);
    ConsistentHashSelector selector = new ConsistentHashSelector(null);

    selector.choose(fleet, "k1");
    selector.choose(fleet, "k2");
    selector.choose(List.of(fleet.get(2), fleet.get(0), fleet.get(1)), "k3"); // same members, other order
    List<ExecutorView> oneDown = List.of(new ExecutorView("ex-0", null, 8, 0, 0.2, false), fleet.get(1), fleet.get(2));
    selector.choose(oneDown, "k4"); // availability is read per call, not baked into the ring
    assertEquals(1, selector.ringBuilds());

    selector.choose(List.of(view("ex-0", 8, 3, 0.2), fleet.get(1), fleet.get(2)), "k5");
    assertEquals(2, selector.ringBuilds());
    selector.choose(fleet.subList(0, 2), "k6");
    assertEquals(3, selector.ringBuilds());
  }

  @Test
  void theSameZoneIsPreferredWhileItHasCapacity() {
    List<ExecutorView> fleet = List.of(new ExecutorView("near", "z1", 1, 0, 0.2, true),
        new ExecutorView("far-1", "z2", 16, 0, 0.2, true), new ExecutorView("far-2", "z2", 16, 0, 0.2, true));
    ConsistentHashSelector selector = new ConsistentHashSelector("z1");

    assertEquals(Map.of("near", KEYS), countByExecutor(assign(selector, fleet)));

    List<ExecutorView> nearBusy = List.of(new ExecutorView("near", "z1", 0, 5, 0.2, true), fleet.get(1), fleet.get(2));
    assertEquals(2, countByExecutor(assign(selector, nearBusy)).size());
  }

  @Test
  void aDuplicateExecutorIdIsRefused() {
    List<ExecutorView> fleet = List.of(view("a", 1, 0, 0.1), view("a", 2, 0, 0.1));

    assertThrows(IllegalArgumentException.class, () -> new ConsistentHashSelector(null).choose(fleet, "k"));
  }
}
