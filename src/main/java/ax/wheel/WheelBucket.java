package ax.wheel;

/**
 * One slot of one {@link TimingWheel} level: a doubly-linked list of entries (O(1) add and unlink)
 * plus the start time of the span the slot currently stands for.
 *
 * <p>A slot is reused each time its level wraps around, so its expiration changes over its life. It
 * may change only while the bucket is out of the wheel's priority queue, because the queue orders
 * buckets by expiration and must not see a key change under it; {@link #enqueue} is the one place
 * that sets it.
 */
final class WheelBucket<T> {
  /** Sentinel of the circular list: {@code root.next} is the first entry, {@code root.prev} the last. */
  private final WheelEntry<T> root = new WheelEntry<>(0, 0, null);
  private long expirationMs;
  private boolean queued;

  WheelBucket() {
    root.next = root;
    root.prev = root;
  }

  long expirationMs() {
    return expirationMs;
  }

  boolean isEmpty() {
    return root.next == root;
  }

  void add(WheelEntry<T> entry) {
    entry.bucket = this;
    entry.prev = root.prev;
    entry.next = root;
    root.prev.next = entry;
    root.prev = entry;
  }

  void remove(WheelEntry<T> entry) {
    entry.prev.next = entry.next;
    entry.next.prev = entry.prev;
    entry.prev = null;
    entry.next = null;
    entry.bucket = null;
  }

  /** Removes and returns the first entry, or null when the bucket is empty. */
  WheelEntry<T> pollFirst() {
    if (isEmpty()) {
      return null;
    }
    WheelEntry<T> first = root.next;
    remove(first);
    return first;
  }

  /**
   * Marks the bucket as sitting in the wheel's queue with the given expiration.
   *
   * @return true when the caller must offer the bucket to the queue; false when it is already
   *         there (and then for this very expiration, which the assertion checks)
   */
  boolean enqueue(long expirationMs) {
    if (queued) {
      assert this.expirationMs == expirationMs
          : "bucket reused for " + expirationMs + " while still queued for " + this.expirationMs;
      return false;
    }
    this.expirationMs = expirationMs;
    queued = true;
    return true;
  }

  /** Records that the wheel took the bucket out of its queue. */
  void dequeued() {
    queued = false;
  }
}
