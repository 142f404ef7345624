package ax.dispatch;

import ax.wheel.ScheduledTask;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClaimQueueTest {

  private static List<ScheduledTask> batch(long firstId, int n) {
    return LongStream.range(firstId, firstId + n).mapToObj(id -> new ScheduledTask(id, 1_000 + id, 5)).toList();
  }

  private static List<Long> ids(List<ScheduledTask> tasks) {
    return tasks.stream().map(ScheduledTask::taskId).toList();
  }

  @Test
  void aLoneBatchLeavesAsItCame() {
    ClaimQueue q = new ClaimQueue(200);
    List<ScheduledTask> only = batch(1, 3);
    q.add(only);
    assertEquals(only, q.next());
    assertTrue(q.isEmpty());
    assertNull(q.next());
  }

  @Test
  void batchesThatQueuedTogetherGoInOneClaimOldestFirst() {
    ClaimQueue q = new ClaimQueue(200);
    for (int ms = 0; ms < 150; ms++) {
      q.add(batch(ms * 10L, 1)); // a task a millisecond, while the claims in flight ran
    }
    List<ScheduledTask> claim = q.next();
    assertEquals(150, claim.size());
    assertEquals(LongStream.range(0, 150).map(i -> i * 10).boxed().toList(), ids(claim));
    assertTrue(q.isEmpty());
  }

  @Test
  void aClaimNeverExceedsTheBatchAndNoBatchIsSplit() {
    ClaimQueue q = new ClaimQueue(10);
    q.add(batch(100, 4));
    q.add(batch(200, 4));
    q.add(batch(300, 4)); // would make 12
    q.add(batch(400, 1));
    assertEquals(List.of(100L, 101L, 102L, 103L, 200L, 201L, 202L, 203L), ids(q.next()));
    assertEquals(List.of(300L, 301L, 302L, 303L, 400L), ids(q.next()));
    assertNull(q.next());
  }

  @Test
  void aBatchLargerThanTheLimitIsKeptWholeAndAlone() {
    ClaimQueue q = new ClaimQueue(5);
    q.add(batch(1, 8));
    q.add(batch(20, 1));
    assertEquals(8, q.next().size());
    assertEquals(List.of(20L), ids(q.next()));
  }

  @Test
  void everyTaskLeavesOnceInArrivalOrder() {
    ClaimQueue q = new ClaimQueue(7);
    List<Long> sent = new ArrayList<>();
    java.util.Set<List<Long>> oversized = new java.util.HashSet<>();
    long id = 0;
    for (int i = 0; i < 300; i++) {
      int n = 1 + (i * 7919) % 9;
      List<ScheduledTask> b = batch(id, n);
      id += n;
      sent.addAll(ids(b));
      if (n > 7) {
        oversized.add(ids(b));
      }
      q.add(b);
    }
    assertEquals(sent.size(), q.tasks());
    List<Long> claimed = new ArrayList<>();
    while (!q.isEmpty()) {
      List<ScheduledTask> c = q.next();
      assertEquals(sent.size() - claimed.size() - c.size(), q.tasks(), "the count follows every claim");
      assertTrue(c.size() <= 7 || oversized.contains(ids(c)), "at most the batch, or one oversized batch alone: " + c.size());
      claimed.addAll(ids(c));
    }
    assertEquals(sent, claimed);
  }

  @Test
  void emptyBatchesAreIgnoredAndClearDropsAll() {
    ClaimQueue q = new ClaimQueue(3);
    q.add(List.of());
    assertTrue(q.isEmpty());
    q.add(batch(1, 2));
    assertEquals(2, q.tasks());
    q.clear();
    assertTrue(q.isEmpty());
    assertEquals(0, q.tasks());
    assertNull(q.next());
    assertEquals(0, q.tasks());
    assertThrows(IllegalArgumentException.class, () -> new ClaimQueue(0));
  }
}
