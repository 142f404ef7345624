package ax.delivery;

import ax.task.ReadyTask;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReadyQueueTest {
  private static ReadyTask task(long id, String processor, int priority, long trigger) {
    return new ReadyTask(id, "t", processor, priority, trigger, trigger, 1_000, null, 0, 2, 1, 0, null);
  }

  @Test
  void higherPriorityFirstThenOlderTrigger() {
    ReadyQueue q = new ReadyQueue(100);
    q.offer(task(1, "p", 5, 200));
    q.offer(task(2, "p", 9, 300));
    q.offer(task(3, "p", 5, 100));
    assertEquals(List.of(2L, 3L, 1L), q.poll("p", 10).stream().map(ReadyTask::taskId).toList());
  }

  @Test
  void aKnownTaskIsNotQueuedTwiceUntilForgotten() {
    ReadyQueue q = new ReadyQueue(100);
    assertTrue(q.offer(task(1, "p", 5, 1)));
    assertFalse(q.offer(task(1, "p", 5, 1)));
    q.poll("p", 1);
    assertFalse(q.offer(task(1, "p", 5, 1)), "still being dispatched");
    q.forget(1);
    assertTrue(q.offer(task(1, "p", 5, 1)));
  }

  @Test
  void boundedAndPerProcessor() {
    ReadyQueue q = new ReadyQueue(2);
    assertTrue(q.offer(task(1, "a", 5, 1)));
    assertTrue(q.offer(task(2, "b", 5, 1)));
    assertFalse(q.offer(task(3, "a", 5, 1)), "full: it stays READY in PostgreSQL");
    assertEquals(List.of(1L), q.poll("a", 5).stream().map(ReadyTask::taskId).toList());
    assertEquals(List.of("b"), q.processorsWaiting());
  }

  @Test
  void putBackReturnsTasksInOrder() {
    ReadyQueue q = new ReadyQueue(10);
    q.offer(task(1, "p", 5, 1));
    q.offer(task(2, "p", 5, 2));
    List<ReadyTask> taken = q.poll("p", 2);
    q.putBack(taken);
    assertEquals(2, q.size());
    assertEquals(1L, q.poll("p", 1).get(0).taskId());
  }
}
