package ax.api;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class InsertPacingTest {

  @Test
  void aSubmissionGoesAloneAtOnceWhileFewerThanTheLimitAreOut() {
    InsertPacing<String> pacing = new InsertPacing<>(2, 10);
    assertEquals(List.of("a"), pacing.arrived("a"));
    assertEquals(List.of("b"), pacing.arrived("b"));
    assertEquals(2, pacing.inFlight());
    assertEquals(List.of(), pacing.returned(), "nothing waits");
    assertEquals(1, pacing.inFlight());
    assertEquals(List.of("c"), pacing.arrived("c"), "a slot is free again");
  }

  @Test
  void whatArrivesWhileTheLimitIsOutGoesTogetherWhenAStatementReturns() {
    InsertPacing<Integer> pacing = new InsertPacing<>(1, 10);
    pacing.arrived(0);
    for (int i = 1; i <= 5; i++) {
      assertEquals(List.of(), pacing.arrived(i));
    }
    assertEquals(5, pacing.waiting());
    assertEquals(List.of(1, 2, 3, 4, 5), pacing.returned(), "in arrival order, one statement");
    assertEquals(1, pacing.inFlight());
    assertEquals(0, pacing.waiting());
  }

  @Test
  void aGroupTakesAtMostTheLimitAndTheRestGoesWithTheNextReturn() {
    InsertPacing<Integer> pacing = new InsertPacing<>(1, 3);
    pacing.arrived(0);
    for (int i = 1; i <= 7; i++) {
      pacing.arrived(i);
    }
    assertEquals(List.of(1, 2, 3), pacing.returned());
    assertEquals(List.of(4, 5, 6), pacing.returned());
    assertEquals(List.of(7), pacing.returned());
    assertEquals(List.of(), pacing.returned());
    assertEquals(0, pacing.inFlight());
  }

  /** Whatever the order of arrivals and returns, every submission is sent exactly once and the limit holds. */
  @Test
  void everySubmissionIsSentOnceAndNeverMoreThanTheLimitAreOut() {
    java.util.Random random = new java.util.Random(42);
    for (int run = 0; run < 200; run++) {
      int limit = 1 + random.nextInt(3);
      InsertPacing<Integer> pacing = new InsertPacing<>(limit, 1 + random.nextInt(5));
      List<Integer> sent = new ArrayList<>();
      int next = 0;
      int out = 0;
      for (int step = 0; step < 100 || out > 0; step++) {
        if (step < 100 && (out == 0 || random.nextBoolean())) {
          List<Integer> now = pacing.arrived(next++);
          sent.addAll(now);
          out += now.isEmpty() ? 0 : 1;
        } else if (out > 0) {
          List<Integer> now = pacing.returned();
          out--;
          sent.addAll(now);
          out += now.isEmpty() ? 0 : 1;
        }
        assertTrue(pacing.inFlight() <= limit);
        assertEquals(out, pacing.inFlight());
      }
      assertEquals(0, pacing.waiting(), "nothing left waiting once every statement returned");
      List<Integer> expected = new ArrayList<>();
      for (int i = 0; i < next; i++) {
        expected.add(i);
      }
      assertEquals(expected, sent, "each sent once, in arrival order");
    }
  }

  @Test
  void aReturnWithNothingOutIsABug() {
    assertThrows(IllegalStateException.class, () -> new InsertPacing<String>(1, 1).returned());
    assertThrows(IllegalArgumentException.class, () -> new InsertPacing<String>(0, 1));
  }
}
