package ax.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TaskIdGeneratorTest {

  private static final long JAN_2026 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

  @Test
  void idDecodesToItsNodeSlotAndMillisecond() {
    TaskIdGenerator generator = new TaskIdGenerator(777, () -> JAN_2026);

    long id = generator.nextId();

    assertTrue(id > 0);
    assertEquals(777, TaskIdGenerator.nodeSlotOf(id));
    assertEquals(JAN_2026, TaskIdGenerator.millisOf(id));
  }

  @Test
  void firstIdOfTheEpochHasOnlyTheNodeBits() {
    long id = new TaskIdGenerator(TaskIdGenerator.MAX_NODE_SLOT, () -> TaskIdGenerator.EPOCH_MS).nextId();

    assertEquals(1023L << 12, id);
    assertEquals(Instant.parse("2025-01-01T00:00:00Z").toEpochMilli(), TaskIdGenerator.millisOf(id));
  }

  @Test
  void twoGeneratorsWithDifferentSlotsNeverCollide() {
    AtomicLong clock = new AtomicLong(JAN_2026);
    TaskIdGenerator first = new TaskIdGenerator(1, clock::get);
    TaskIdGenerator second = new TaskIdGenerator(2, clock::get);
    int perGenerator = 1_000_000;
    long[] ids = new long[2 * perGenerator];

    for (int i = 0; i < perGenerator; i++) {
      if (i % 3_000 == 0) {
        clock.incrementAndGet();
      }
      ids[2 * i] = first.nextId();
      ids[2 * i + 1] = second.nextId();
    }

    Arrays.sort(ids);
    for (int i = 1; i < ids.length; i++) {
      assertTrue(ids[i] != ids[i - 1], "duplicate id " + ids[i]);
    }
  }

  @Test
  void idsKeepIncreasingWhenTheClockGoesBackwards() {
    AtomicLong clock = new AtomicLong(JAN_2026);
    TaskIdGenerator generator = new TaskIdGenerator(5, clock::get);
    long previous = generator.nextId();

    for (long step : new long[] {-1, -60_000, 0, +5, -3_600_000, +1}) {
      clock.addAndGet(step);
      long id = generator.nextId();
      assertTrue(id > previous, "clock step " + step);
      previous = id;
    }
    assertEquals(JAN_2026, TaskIdGenerator.millisOf(previous));
  }

  @Test
  void sequenceOverflowBorrowsTheNextMillisecond() {
    TaskIdGenerator generator = new TaskIdGenerator(5, () -> JAN_2026);
    long previous = 0;

    for (int i = 0; i < 4096; i++) {
      long id = generator.nextId();
      assertTrue(id > previous);
      assertEquals(JAN_2026, TaskIdGenerator.millisOf(id));
      previous = id;
    }
    long borrowed = generator.nextId();

    assertTrue(borrowed > previous);
    assertEquals(JAN_2026 + 1, TaskIdGenerator.millisOf(borrowed));
    assertEquals(5, TaskIdGenerator.nodeSlotOf(borrowed));
  }

  @Test
  void borrowedMillisecondIsNotReusedWhenTheClockCatchesUp() {
    AtomicLong clock = new AtomicLong(JAN_2026);
    TaskIdGenerator generator = new TaskIdGenerator(5, clock::get);
    long last = 0;
    for (int i = 0; i < 4097; i++) {
      last = generator.nextId();
    }

    clock.incrementAndGet();
    long next = generator.nextId();

    assertTrue(next > last);
  }

  @Test
  void nodeSlotOutsideZeroTo1023IsRejected() {
    assertThrows(IllegalArgumentException.class, () -> new TaskIdGenerator(-1, () -> JAN_2026));
    assertThrows(IllegalArgumentException.class, () -> new TaskIdGenerator(1024, () -> JAN_2026));
  }

  @Test
  void clockBeforeTheIdEpochIsRejected() {
    TaskIdGenerator generator = new TaskIdGenerator(0, () -> TaskIdGenerator.EPOCH_MS - 1);

    assertThrows(IllegalStateException.class, generator::nextId);
  }
}
