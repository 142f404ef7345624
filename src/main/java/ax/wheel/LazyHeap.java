package ax.wheel;

import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.function.Predicate;

/**
 * A priority queue with O(1) removal by marking. Removing an arbitrary element from a binary heap
 * costs O(n); instead the owner marks the element dead (so {@code isLive} turns false) and calls
 * {@link #discarded()}. Dead elements are skipped when they reach the head, and the heap is compacted
 * once they outnumber the live ones, so memory stays proportional to what is really held even under
 * a stream of cancellations.
 */
final class LazyHeap<E> {
  /** Dead elements tolerated before compaction is considered, so small heaps never compact. */
  private static final int COMPACTION_SLACK = 1024;

  private final PriorityQueue<E> heap;
  private final Predicate<E> isLive;
  private int liveCount;

  LazyHeap(Comparator<? super E> order, Predicate<E> isLive) {
    this.heap = new PriorityQueue<>(order);
    this.isLive = isLive;
  }

  void add(E element) {
    heap.add(element);
    liveCount++;
  }

  /** Records that the owner has marked one element of this heap dead. */
  void discarded() {
    liveCount--;
    if (heap.size() > 2 * liveCount + COMPACTION_SLACK) {
      heap.removeIf(isLive.negate());
    }
  }

  /** The first live element, or null. */
  E peek() {
    E head;
    while ((head = heap.peek()) != null && !isLive.test(head)) {
      heap.poll();
    }
    return head;
  }

  /** Removes and returns the first live element, or null. */
  E poll() {
    E head = peek();
    if (head != null) {
      heap.poll();
      liveCount--;
    }
    return head;
  }

  /** Number of live elements. */
  int size() {
    return liveCount;
  }
}
