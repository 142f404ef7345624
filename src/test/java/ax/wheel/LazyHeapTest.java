package ax.wheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LazyHeapTest {

  private final Set<Integer> dead = new HashSet<>();
  private final LazyHeap<Integer> heap = new LazyHeap<>(Comparator.naturalOrder(), n -> !dead.contains(n));

  private void kill(int n) {
    dead.add(n);
    heap.discarded();
  }

  @Test
  void deadElementsAreSkippedAtTheHead() {
    heap.add(3);
    heap.add(1);
    heap.add(2);
    kill(1);

    assertEquals(2, heap.size());
    assertEquals(2, heap.peek());
    assertEquals(2, heap.poll());
    assertEquals(3, heap.poll());
    assertNull(heap.poll());
    assertEquals(0, heap.size());
  }

  @Test
  void survivorsKeepTheirOrderAcrossCompaction() {
    for (int n = 0; n < 10_000; n++) {
      heap.add(n);
    }
    for (int n = 0; n < 10_000; n++) {
      if (n % 1_000 != 999) {
        kill(n);
      }
    }

    List<Integer> drained = new ArrayList<>();
    for (Integer n; (n = heap.poll()) != null; ) {
      drained.add(n);
    }
    assertEquals(List.of(999, 1999, 2999, 3999, 4999, 5999, 6999, 7999, 8999, 9999), drained);
  }
}
