package ax.http;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Remembered answers, safe to share between threads, bounded by emptying the whole memo when it is full
 * rather than evicting entry by entry. That is enough where the keys are few in practice (the callback
 * hosts and URLs an installation uses) and a miss only costs computing one answer again; a caller naming
 * a new key per request still cannot make it grow past the bound.
 */
final class BoundedMemo<K, V> {
  private final Map<K, V> entries = new ConcurrentHashMap<>();
  private final int capacity;

  BoundedMemo(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1");
    }
    this.capacity = capacity;
  }

  /** The remembered answer, or null. */
  V get(K key) {
    return entries.get(key);
  }

  void put(K key, V value) {
    if (entries.size() >= capacity && !entries.containsKey(key)) {
      entries.clear();
    }
    entries.put(key, value);
  }

  int size() {
    return entries.size();
  }
}
