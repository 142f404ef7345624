package ax.wheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ax.wheel.TieredSchedule.Admission;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class TieredScheduleTest {

  private static final long START = 1_000_000;
  private static final long TICK = 10;
  private static final long WINDOW = 5_000;

  private static TieredSchedule schedule(int capacity) {
    return new TieredSchedule(TICK, 64, WINDOW, capacity, START);
  }

  private static ScheduledTask task(long id, long triggerTimeMs, int priority) {
    return new ScheduledTask(id, triggerTimeMs, priority);
  }

  private static List<Long> ids(List<ScheduledTask> tasks) {
    return tasks.stream().map(ScheduledTask::taskId).toList();
  }

  @Test
  void dueTasksComeOutByTriggerTimeThenHigherPriorityThenTaskId() {
    TieredSchedule schedule = schedule(100);
    long t = START + 100;
    schedule.add(task(5, t + 1, 9), START);
    schedule.add(task(4, t, 1), START);
    schedule.add(task(3, t, 7), START);
    schedule.add(task(2, t, 7), START);
    schedule.add(task(1, t + 2, 0), START);

    assertEquals(List.of(2L, 3L, 4L, 5L, 1L), ids(schedule.pollDue(t + 2, 100)));
  }

  @Test
  void taskIsNeverReturnedBeforeItsTriggerTimeEvenAfterItsTickStarted() {
    TieredSchedule schedule = schedule(100);
    long trigger = START + 57;
    schedule.add(task(1, trigger, 5), START);

    assertEquals(List.of(), schedule.pollDue(START + 50, 100));
    assertEquals(trigger, schedule.nextWakeupMs());
    assertEquals(List.of(), schedule.pollDue(trigger - 1, 100));
    assertEquals(List.of(1L), ids(schedule.pollDue(trigger, 100)));
    assertEquals(0, schedule.size());
  }

  @Test
  void pastDueTaskIsReturnedByTheNextPoll() {
    TieredSchedule schedule = schedule(100);
    schedule.add(task(1, START - 60_000, 5), START);

    assertTrue(schedule.nextWakeupMs() <= START);
    assertEquals(List.of(1L), ids(schedule.pollDue(START, 100)));
  }

  @Test
  void tasksWithinTheWindowGoToTheWheelAndLaterOnesToTheDelayQueue() {
    TieredSchedule schedule = schedule(100);
    schedule.add(task(1, START + WINDOW, 5), START);
    schedule.add(task(2, START + WINDOW + 1, 5), START);

    assertEquals(1, schedule.wheelSize());
    assertEquals(1, schedule.delayQueueSize());
    assertEquals(2, schedule.size());
  }

  @Test
  void delayedTaskIsPromotedIntoTheWheelWhenItComesWithinTheWindow() {
    TieredSchedule schedule = schedule(100);
    long trigger = START + 3 * WINDOW;
    schedule.add(task(1, trigger, 5), START);

    assertEquals(trigger - WINDOW, schedule.nextWakeupMs());
    assertEquals(List.of(), schedule.pollDue(trigger - WINDOW, 100));
    assertEquals(1, schedule.wheelSize());
    assertEquals(0, schedule.delayQueueSize());
    assertEquals(List.of(1L), ids(schedule.pollDue(trigger, 100)));
  }

  @Test
  void delayedTaskAlreadyDueWhenPolledIsReturnedAtOnce() {
    TieredSchedule schedule = schedule(100);
    long trigger = START + 3 * WINDOW;
    schedule.add(task(1, trigger, 5), START);

    assertEquals(List.of(1L), ids(schedule.pollDue(trigger + 60_000, 100)));
  }

  @Test
  void cancelRemovesATaskFromTheWheel() {
    TieredSchedule schedule = schedule(100);
    schedule.add(task(1, START + 100, 5), START);

    assertTrue(schedule.cancel(1));

    assertFalse(schedule.contains(1));
    assertEquals(0, schedule.wheelSize());
    assertEquals(List.of(), schedule.pollDue(START + 100_000, 100));
  }

  @Test
  void cancelRemovesATaskFromTheDelayQueue() {
    TieredSchedule schedule = schedule(100);
    schedule.add(task(1, START + 10 * WINDOW, 5), START);

    assertTrue(schedule.cancel(1));

    assertEquals(0, schedule.delayQueueSize());
    assertEquals(Long.MAX_VALUE, schedule.nextWakeupMs());
    assertEquals(List.of(), schedule.pollDue(START + 100 * WINDOW, 100));
  }

  @Test
  void cancelRemovesATaskTheWheelAlreadyHandedOutEarly() {
    TieredSchedule schedule = schedule(100);
    long trigger = START + 57;
    schedule.add(task(1, trigger, 5), START);
    schedule.pollDue(START + 50, 100);

    assertTrue(schedule.cancel(1));

    assertEquals(0, schedule.size());
    assertEquals(Long.MAX_VALUE, schedule.nextWakeupMs());
    assertEquals(List.of(), schedule.pollDue(trigger, 100));
  }

  @Test
  void cancelRemovesAPastDueTask() {
    TieredSchedule schedule = schedule(100);
    schedule.add(task(1, START - 1, 5), START);

    assertTrue(schedule.cancel(1));

    assertEquals(List.of(), schedule.pollDue(START, 100));
  }

  @Test
  void cancelOfATaskNotHeldReturnsFalse() {
    TieredSchedule schedule = schedule(100);
    schedule.add(task(1, START + 100, 5), START);
    schedule.pollDue(START + 100, 100);

    assertFalse(schedule.cancel(1));
    assertFalse(schedule.cancel(2));
  }

  @Test
  void addingTheSameTaskIdAgainReplacesItInsteadOfDuplicating() {
    TieredSchedule schedule = schedule(100);
    assertEquals(Admission.ADDED, schedule.add(task(1, START + 100, 5), START));
    assertEquals(Admission.REPLACED, schedule.add(task(1, START + 100, 5), START));
    assertEquals(Admission.REPLACED, schedule.add(task(1, START + 200, 9), START));

    assertEquals(1, schedule.size());
    assertEquals(List.of(), schedule.pollDue(START + 150, 100));
    assertEquals(List.of(task(1, START + 200, 9)), schedule.pollDue(START + 200, 100));
  }

  @Test
  void replacingMovesATaskBetweenTiers() {
    TieredSchedule schedule = schedule(100);
    schedule.add(task(1, START + 10 * WINDOW, 5), START);
    assertEquals(1, schedule.delayQueueSize());

    schedule.add(task(1, START + 100, 5), START);
    assertEquals(0, schedule.delayQueueSize());
    assertEquals(1, schedule.wheelSize());

    schedule.add(task(1, START - 5, 5), START);
    assertEquals(0, schedule.wheelSize());
    assertEquals(1, schedule.size());

    schedule.add(task(1, START + 20 * WINDOW, 5), START);
    assertEquals(1, schedule.delayQueueSize());
    assertEquals(List.of(), schedule.pollDue(START + 19 * WINDOW, 100));
    assertEquals(List.of(1L), ids(schedule.pollDue(START + 20 * WINDOW, 100)));
  }

  @Test
  void fullScheduleRefusesNewTasksAndAcceptsAgainAfterAPoll() {
    TieredSchedule schedule = schedule(2);
    assertEquals(Admission.ADDED, schedule.add(task(1, START + 10, 5), START));
    assertEquals(Admission.ADDED, schedule.add(task(2, START + 10 * WINDOW, 5), START));

    assertTrue(schedule.isFull());
    assertEquals(0, schedule.freeCapacity());
    assertEquals(Admission.REFUSED_FULL, schedule.add(task(3, START + 20, 5), START));
    assertFalse(schedule.contains(3));

    schedule.pollDue(START + 10, 100);
    assertEquals(1, schedule.freeCapacity());
    assertEquals(Admission.ADDED, schedule.add(task(3, START + 20, 5), START));
  }

  @Test
  void replacingATaskNeedsNoFreeCapacity() {
    TieredSchedule schedule = schedule(1);
    schedule.add(task(1, START + 10, 5), START);

    assertEquals(Admission.REPLACED, schedule.add(task(1, START + 20, 5), START));
    assertEquals(1, schedule.size());
  }

  @Test
  void cancellingFreesCapacity() {
    TieredSchedule schedule = schedule(1);
    schedule.add(task(1, START + 10, 5), START);
    schedule.cancel(1);

    assertEquals(Admission.ADDED, schedule.add(task(2, START + 10, 5), START));
  }

  @Test
  void dueTasksBeyondMaxStayForTheNextPoll() {
    TieredSchedule schedule = schedule(100);
    for (long id = 1; id <= 5; id++) {
      schedule.add(task(id, START + id, 5), START);
    }

    assertEquals(List.of(1L, 2L), ids(schedule.pollDue(START + 10, 2)));
    assertTrue(schedule.nextWakeupMs() <= START + 10);
    assertEquals(List.of(3L, 4L), ids(schedule.pollDue(START + 10, 2)));
    assertEquals(List.of(5L), ids(schedule.pollDue(START + 10, 2)));
    assertEquals(0, schedule.size());
  }

  @Test
  void nextWakeupIsMaxValueWhenNothingIsHeld() {
    assertEquals(Long.MAX_VALUE, schedule(10).nextWakeupMs());
  }

  @Test
  void nextWakeupIsLaterThanNowAfterAFullPoll() {
    TieredSchedule schedule = schedule(100);
    schedule.add(task(1, START + 3, 5), START);
    schedule.add(task(2, START + 55, 5), START);
    schedule.add(task(3, START + 3 * WINDOW, 5), START);

    long now = START + 3;
    while (schedule.size() > 0) {
      schedule.pollDue(now, Integer.MAX_VALUE);
      long wakeup = schedule.nextWakeupMs();
      assertTrue(wakeup > now, "wake-up " + wakeup + " not after " + now);
      now = wakeup;
    }
  }

  @Test
  void manyCancelledDelayedTasksDoNotDisturbTheSurvivors() {
    TieredSchedule schedule = schedule(10_000);
    for (long id = 0; id < 5_000; id++) {
      schedule.add(task(id, START + 2 * WINDOW + id, 5), START);
    }
    for (long id = 0; id < 5_000; id++) {
      if (id % 500 != 0) {
        schedule.cancel(id);
      }
    }

    assertEquals(10, schedule.delayQueueSize());
    assertEquals(List.of(0L, 500L, 1000L, 1500L, 2000L, 2500L, 3000L, 3500L, 4000L, 4500L),
        ids(schedule.pollDue(START + 10 * WINDOW, 100)));
  }

  @Test
  void farFutureTriggerTimeDoesNotOverflowTheWakeup() {
    TieredSchedule schedule = schedule(10);
    schedule.add(task(1, Long.MAX_VALUE, 5), START);

    assertEquals(Long.MAX_VALUE - WINDOW, schedule.nextWakeupMs());
    assertEquals(List.of(), schedule.pollDue(START, 10));
  }

  @Test
  void invalidArgumentsAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> new TieredSchedule(TICK, 64, -1, 10, START));
    assertThrows(IllegalArgumentException.class, () -> new TieredSchedule(TICK, 64, WINDOW, 0, START));
    assertThrows(IllegalArgumentException.class, () -> schedule(10).pollDue(START, -1));
    assertThrows(NullPointerException.class, () -> schedule(10).add(null, START));
  }

  /**
   * 100 000 random adds, replaces, cancels and polls against a sorted set of what should be held.
   * Checks admission results, the exact tasks and order of every poll, and that the wake-up time
   * is never later than the earliest held task and, after a full poll, never at or before now.
   */
  @Test
  void randomOperationsAgreeWithASortedReferenceModel() {
    Comparator<ScheduledTask> dueOrder = Comparator.comparingLong(ScheduledTask::triggerTimeMs)
        .thenComparing(ScheduledTask::priority, Comparator.reverseOrder())
        .thenComparingLong(ScheduledTask::taskId);
    int capacity = 1_500;
    Random random = new Random(42L);
    TieredSchedule schedule = new TieredSchedule(TICK, 16, 2_000, capacity, START);
    TreeSet<ScheduledTask> expected = new TreeSet<>(dueOrder);
    Map<Long, ScheduledTask> expectedById = new HashMap<>();
    long now = START;

    for (int op = 0; op < 100_000; op++) {
      int choice = random.nextInt(20);
      long id = random.nextInt(2_500);
      if (choice < 10) {
        long trigger = random.nextInt(10) == 0
            ? now + random.nextInt(500_000)
            : now - 50 + random.nextInt(10_000);
        ScheduledTask task = task(id, trigger, random.nextInt(10));
        ScheduledTask previous = expectedById.get(id);
        Admission want = previous != null ? Admission.REPLACED
            : expected.size() >= capacity ? Admission.REFUSED_FULL
            : Admission.ADDED;
        assertEquals(want, schedule.add(task, now), "op " + op);
        if (want != Admission.REFUSED_FULL) {
          if (previous != null) {
            expected.remove(previous);
          }
          expected.add(task);
          expectedById.put(id, task);
        }
      } else if (choice < 13) {
        ScheduledTask previous = expectedById.remove(id);
        if (previous != null) {
          expected.remove(previous);
        }
        assertEquals(previous != null, schedule.cancel(id), "op " + op);
      } else if (choice < 14) {
        assertEquals(expectedById.containsKey(id), schedule.contains(id), "op " + op);
      } else {
        long wakeup = schedule.nextWakeupMs();
        if (!expected.isEmpty()) {
          assertTrue(wakeup <= expected.first().triggerTimeMs(), "oversleeps at op " + op);
        }
        now = random.nextBoolean() ? now + random.nextInt(200) : Math.max(now, Math.min(wakeup, now + 20_000));
        int max = random.nextInt(4) == 0 ? Integer.MAX_VALUE : 1 + random.nextInt(30);
        List<ScheduledTask> want = new ArrayList<>();
        for (Iterator<ScheduledTask> it = expected.iterator(); it.hasNext() && want.size() < max; ) {
          ScheduledTask next = it.next();
          if (next.triggerTimeMs() > now) {
            break;
          }
          want.add(next);
          it.remove();
          expectedById.remove(next.taskId());
        }
        assertEquals(want, schedule.pollDue(now, max), "op " + op);
        if (max == Integer.MAX_VALUE) {
          assertTrue(schedule.nextWakeupMs() > now, "busy loop at op " + op);
        }
      }
      assertEquals(expected.size(), schedule.size(), "op " + op);
      assertEquals(capacity - expected.size(), schedule.freeCapacity());
    }
  }
}
