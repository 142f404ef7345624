package ax.fleet;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * An immutable consistent-hash ring: each executor owns {@code n} points ("virtual nodes") at
 * {@code hash64(id + "#" + i)}, and a key belongs to the first point clockwise from {@code hash64(key)}.
 * Because a point's position depends only on its executor and index, adding or removing points moves
 * only the keys that land on those points; every other key keeps its executor.
 */
final class HashRing {

  private final long[] points;
  private final String[] owners;

  private HashRing(long[] points, String[] owners) {
    this.points = points;
    this.owners = owners;
  }

  /** @param virtualNodes executor id → number of points (entries with 0 are left off the ring) */
  static HashRing build(Map<String, Integer> virtualNodes) {
    int total = virtualNodes.values().stream().mapToInt(Integer::intValue).sum();
    Point[] all = new Point[total];
    int next = 0;
    for (Map.Entry<String, Integer> e : virtualNodes.entrySet()) {
      for (int i = 0; i < e.getValue(); i++) {
        all[next++] = new Point(hash64(e.getKey() + "#" + i), e.getKey());
      }
    }
    // Ties (two points with one 64-bit hash) are ordered by owner so every node builds the same ring.
    Arrays.sort(all, Comparator.comparingLong(Point::position).thenComparing(Point::owner));
    long[] points = new long[total];
    String[] owners = new String[total];
    for (int i = 0; i < total; i++) {
      points[i] = all[i].position();
      owners[i] = all[i].owner();
    }
    return new HashRing(points, owners);
  }

  /**
   * The owner of the first point clockwise from {@code keyHash} that {@code eligible} accepts, walking
   * past the points of executors that cannot take work; empty when no point qualifies.
   */
  Optional<String> walk(long keyHash, Predicate<String> eligible) {
    if (points.length == 0) {
      return Optional.empty();
    }
    int start = Arrays.binarySearch(points, keyHash);
    if (start < 0) {
      start = -start - 1; // the insertion point: the first point after the key
    }
    for (int step = 0; step < points.length; step++) {
      String owner = owners[(start + step) % points.length];
      if (eligible.test(owner)) {
        return Optional.of(owner);
      }
    }
    return Optional.empty();
  }

  int size() {
    return points.length;
  }

  /**
   * The first 8 bytes of MD5, big-endian. Stable across JVMs, versions and nodes (unlike
   * {@code String.hashCode}, whose 32 bits also cluster badly on similar ids); speed is not a concern
   * because the ring is rebuilt rarely and a lookup hashes once.
   */
  static long hash64(String text) {
    byte[] digest = md5().digest(text.getBytes(StandardCharsets.UTF_8));
    long hash = 0;
    for (int i = 0; i < Long.BYTES; i++) {
      hash = (hash << 8) | (digest[i] & 0xff);
    }
    return hash;
  }

  private static MessageDigest md5() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime must provide MD5", e);
    }
  }

  private record Point(long position, String owner) {
  }
}
