package ax.wheel;

/**
 * One scheduled value in a {@link TimingWheel}: a node of exactly one {@link WheelBucket}'s
 * doubly-linked list. Keeping the links on the entry itself is what makes cancel O(1): the wheel finds
 * the entry by key and unlinks it without searching its bucket.
 */
final class WheelEntry<T> {
  final long key;
  final long deadlineMs;
  final T value;

  /** The bucket whose list holds this entry, or null while it is in none. */
  WheelBucket<T> bucket;
  WheelEntry<T> prev;
  WheelEntry<T> next;

  WheelEntry(long key, long deadlineMs, T value) {
    this.key = key;
    this.deadlineMs = deadlineMs;
    this.value = value;
  }
}
