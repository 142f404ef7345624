package ax.fleet;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * R6's alternative strategy: the same routing key keeps going to the same executor (warm caches,
 * per-key ordering) while load still shapes the ring.
 *
 * <ul>
 *   <li>Virtual nodes ∝ weight: the heaviest executor gets {@code baseVirtualNodes} points, the others
 *       {@code base × weight / maxWeight}, at least 1 while their weight is above 0; an executor with
 *       no free thread has weight 0 and is off the ring.
 *   <li>CPU above 80 %: the count × 0.7, so a hot machine sheds some keys before it is saturated.
 *   <li>Lookup walks clockwise past executors that cannot take work (unavailable, or filtered out by
 *       the zone preference) and answers empty when none can.
 * </ul>
 *
 * <p>Building a ring hashes every point, so the ring is cached and rebuilt only when the point counts
 * change (the fingerprint is the sorted id → count map). Availability is read from the candidates of
 * each call, not from the cache, so a SUSPECT executor is skipped at once without a rebuild. Safe for
 * concurrent use: the cache is an immutable snapshot in a volatile field; a race at worst builds the
 * same ring twice.
 */
public final class ConsistentHashSelector implements ExecutorSelector {

  public static final int DEFAULT_BASE_VIRTUAL_NODES = 100;
  static final double HOT_CPU_LOAD = 0.8;
  static final double HOT_CPU_FACTOR = 0.7;

  private final int baseVirtualNodes;
  private final String preferredZone;
  private final AtomicLong ringBuilds = new AtomicLong();
  private volatile CachedRing cached = new CachedRing(Map.of(), HashRing.build(Map.of()));

  /** {@code preferredZone} may be null for no preference. */
  public ConsistentHashSelector(String preferredZone) {
    this(DEFAULT_BASE_VIRTUAL_NODES, preferredZone);
  }

  public ConsistentHashSelector(int baseVirtualNodes, String preferredZone) {
    if (baseVirtualNodes < 1) {
      throw new IllegalArgumentException("baseVirtualNodes must be at least 1, was " + baseVirtualNodes);
    }
    this.baseVirtualNodes = baseVirtualNodes;
    this.preferredZone = preferredZone;
  }

  @Override
  public Optional<String> choose(List<ExecutorView> candidates, String routingKey) {
    Objects.requireNonNull(routingKey, "routingKey");
    Map<String, ExecutorView> byId = byId(candidates);
    Predicate<ExecutorView> eligible = ZonePreference.eligible(candidates, preferredZone);
    return ringFor(virtualNodes(candidates))
        .walk(HashRing.hash64(routingKey), id -> eligible.test(byId.get(id)));
  }

  /** Point counts per executor, sorted by id so equal memberships give equal fingerprints. */
  SortedMap<String, Integer> virtualNodes(List<ExecutorView> candidates) {
    double maxWeight = 0;
    for (ExecutorView view : candidates) {
      maxWeight = Math.max(maxWeight, view.weight());
    }
    SortedMap<String, Integer> counts = new TreeMap<>();
    if (maxWeight <= 0) {
      return counts;
    }
    for (ExecutorView view : candidates) {
      if (view.weight() <= 0) {
        continue;
      }
      int count = (int) Math.max(1, Math.round(baseVirtualNodes * view.weight() / maxWeight));
      if (view.cpuLoad() > HOT_CPU_LOAD) {
        count = (int) Math.max(1, Math.round(count * HOT_CPU_FACTOR));
      }
      counts.put(view.executorId(), count);
    }
    return counts;
  }

  /** How many rings were built; lets tests check the cache. */
  long ringBuilds() {
    return ringBuilds.get();
  }

  private HashRing ringFor(SortedMap<String, Integer> fingerprint) {
    CachedRing current = cached;
    if (current.fingerprint().equals(fingerprint)) {
      return current.ring();
    }
    HashRing ring = HashRing.build(fingerprint);
    ringBuilds.incrementAndGet();
    cached = new CachedRing(Map.copyOf(fingerprint), ring);
    return ring;
  }

  private static Map<String, ExecutorView> byId(List<ExecutorView> candidates) {
    Map<String, ExecutorView> byId = new HashMap<>();
    for (ExecutorView view : candidates) {
      if (byId.put(view.executorId(), view) != null) {
        // The registry is keyed by id, so a repeat is a bug upstream; guessing which one is current
        // could route to a dead session.
        throw new IllegalArgumentException("executor " + view.executorId() + " appears twice in the candidates");
      }
    }
    return byId;
  }

  private record CachedRing(Map<String, Integer> fingerprint, HashRing ring) {
  }
}
