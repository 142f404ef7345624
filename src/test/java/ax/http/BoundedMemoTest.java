package ax.http;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BoundedMemoTest {
  @Test
  void remembersWhatWasPut() {
    BoundedMemo<String, Integer> memo = new BoundedMemo<>(3);
    memo.put("a", 1);
    memo.put("b", 2);
    assertEquals(1, memo.get("a"));
    assertEquals(2, memo.get("b"));
    assertNull(memo.get("c"));
  }

  @Test
  void neverHoldsMoreThanItsCapacityHowEverManyKeysComeIn() {
    BoundedMemo<Integer, Integer> memo = new BoundedMemo<>(100);
    for (int i = 0; i < 10_000; i++) {
      memo.put(i, i * 2);
      assertTrue(memo.size() <= 100, "size " + memo.size() + " after " + (i + 1) + " keys");
      assertEquals(i * 2, memo.get(i), "the key just put is always remembered");
    }
  }

  @Test
  void whenFullItStartsAfreshRatherThanRefusingNewKeys() {
    BoundedMemo<String, String> memo = new BoundedMemo<>(2);
    memo.put("a", "A");
    memo.put("b", "B");
    memo.put("c", "C");
    assertEquals(1, memo.size());
    assertNull(memo.get("a"));
    assertEquals("C", memo.get("c"));
  }

  @Test
  void replacingAKeyKeepsOneEntry() {
    BoundedMemo<String, String> memo = new BoundedMemo<>(5);
    memo.put("a", "1");
    memo.put("a", "2");
    assertEquals(1, memo.size());
    assertEquals("2", memo.get("a"));
  }

  @Test
  void aFullMemoKeepsItsEntriesWhenAKnownKeyIsPutAgain() {
    BoundedMemo<String, String> memo = new BoundedMemo<>(2);
    memo.put("a", "A");
    memo.put("b", "B");
    memo.put("b", "B2");
    assertEquals(2, memo.size());
    assertEquals("A", memo.get("a"));
  }

  @Test
  void aCapacityBelowOneIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new BoundedMemo<String, String>(0));
  }
}
