package ax.wheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ax.wheel.TimingWheel.Expired;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class TimingWheelTest {

  private static List<Expired<String>> advance(TimingWheel<String> wheel, long nowMs) {
    List<Expired<String>> out = new ArrayList<>();
    wheel.advance(nowMs, out::add);
    return out;
  }

  private static List<Long> keys(List<? extends Expired<?>> expired) {
    return expired.stream().map(Expired::key).toList();
  }

  @Test
  void entryIsHandedOutWhenItsLevelZeroBucketStarts() {
    TimingWheel<String> wheel = new TimingWheel<>(10, 8, 0);
    wheel.schedule(1, 45, "a");

    assertEquals(List.of(), advance(wheel, 39));
    assertEquals(List.of(new Expired<>(1, 45, "a")), advance(wheel, 40));
    assertEquals(0, wheel.size());
  }

  @Test
  void entryBeyondLevelZeroCascadesDownAndIsHandedOutInItsOwnTick() {
    TimingWheel<String> wheel = new TimingWheel<>(1, 4, 0);
    wheel.schedule(7, 1000, "far");

    assertEquals(List.of(), advance(wheel, 999));
    assertTrue(wheel.contains(7));
    assertEquals(List.of(7L), keys(advance(wheel, 1000)));
  }

  @Test
  void driverSleepingToTheNextExpirationWakesAFewTimesNotOncePerTick() {
    TimingWheel<String> wheel = new TimingWheel<>(1, 8, 0);
    wheel.schedule(1, 1_000_000, "x");

    int wakeups = 0;
    List<Long> handedOutAt = new ArrayList<>();
    while (wheel.size() > 0) {
      long next = wheel.nextExpirationMs();
      wakeups++;
      wheel.advance(next, expired -> handedOutAt.add(next));
    }

    assertEquals(List.of(1_000_000L), handedOutAt);
    assertTrue(wakeups <= 8, "one wake-up per level at most, was " + wakeups);
  }

  @Test
  void emptyWheelHasNoNextExpiration() {
    assertEquals(Long.MAX_VALUE, new TimingWheel<String>(10, 8, 0).nextExpirationMs());
  }

  @Test
  void nextExpirationIsTheStartOfTheEarliestNonEmptyBucket() {
    TimingWheel<String> wheel = new TimingWheel<>(10, 8, 0);
    wheel.schedule(1, 57, "late");
    wheel.schedule(2, 33, "early");

    assertEquals(30, wheel.nextExpirationMs());
  }

  @Test
  void nextExpirationSkipsBucketsEmptiedByCancel() {
    TimingWheel<String> wheel = new TimingWheel<>(10, 8, 0);
    wheel.schedule(1, 33, "cancelled");
    wheel.schedule(2, 57, "kept");
    wheel.cancel(1);

    assertEquals(50, wheel.nextExpirationMs());
    wheel.cancel(2);
    assertEquals(Long.MAX_VALUE, wheel.nextExpirationMs());
  }

  @Test
  void cancelledEntryIsNeverReturnedByAdvance() {
    TimingWheel<String> wheel = new TimingWheel<>(10, 8, 0);
    wheel.schedule(1, 25, "a");
    wheel.schedule(2, 25, "b");

    assertTrue(wheel.cancel(1));

    assertEquals(List.of(2L), keys(advance(wheel, 1_000)));
    assertFalse(wheel.contains(1));
  }

  @Test
  void cancelReportsWhetherTheKeyWasPresent() {
    TimingWheel<String> wheel = new TimingWheel<>(10, 8, 0);
    wheel.schedule(1, 25, "a");

    assertTrue(wheel.cancel(1));
    assertFalse(wheel.cancel(1));
    assertFalse(wheel.cancel(99));
    assertEquals(0, wheel.size());
  }

  @Test
  void handedOutEntryCanNoLongerBeCancelled() {
    TimingWheel<String> wheel = new TimingWheel<>(10, 8, 0);
    wheel.schedule(1, 25, "a");
    advance(wheel, 20);

    assertFalse(wheel.cancel(1));
  }

  @Test
  void reschedulingReplacesTheOldEntry() {
    TimingWheel<String> wheel = new TimingWheel<>(10, 8, 0);
    wheel.schedule(1, 50, "old");
    wheel.schedule(1, 200, "new");

    assertEquals(1, wheel.size());
    assertEquals(List.of(), advance(wheel, 150));
    assertEquals(List.of(new Expired<>(1, 200, "new")), advance(wheel, 200));
  }

  @Test
  void reschedulingToAnEarlierDeadlineHandsTheEntryOutEarlier() {
    TimingWheel<String> wheel = new TimingWheel<>(10, 8, 0);
    wheel.schedule(1, 5_000, "old");
    wheel.schedule(1, 30, "new");

    assertEquals(List.of(new Expired<>(1, 30, "new")), advance(wheel, 30));
    assertEquals(List.of(), advance(wheel, 10_000));
  }

  @Test
  void deadlineInTheCurrentTickIsHandedOutByTheNextAdvance() {
    TimingWheel<String> wheel = new TimingWheel<>(10, 8, 100);
    advance(wheel, 105);
    wheel.schedule(1, 108, "now-ish");

    assertTrue(wheel.nextExpirationMs() <= 105);
    assertEquals(List.of(1L), keys(advance(wheel, 105)));
  }

  @Test
  void pastDeadlineIsHandedOutByTheNextAdvance() {
    TimingWheel<String> wheel = new TimingWheel<>(10, 8, 500);
    wheel.schedule(1, 3, "overdue");
    wheel.schedule(2, Long.MIN_VALUE, "very overdue");

    assertEquals(List.of(1L, 2L), keys(advance(wheel, 500)));
  }

  @Test
  void earlierTimeDoesNotMoveTheWheelBack() {
    TimingWheel<String> wheel = new TimingWheel<>(10, 8, 0);
    advance(wheel, 500);
    wheel.schedule(1, 555, "a");

    assertEquals(List.of(), advance(wheel, 100));
    assertEquals(550, wheel.nextExpirationMs());
    assertEquals(List.of(1L), keys(advance(wheel, 550)));
  }

  @Test
  void advancingThroughIdleTimeKeepsANewNearDeadlineInItsOwnTick() {
    TimingWheel<String> wheel = new TimingWheel<>(10, 8, 0);
    advance(wheel, 10_000);
    wheel.schedule(1, 10_055, "near");

    assertEquals(10_050, wheel.nextExpirationMs());
  }

  @Test
  void advanceToAnEarlierTimeStillHandsOutWhatIsAlreadyDue() {
    TimingWheel<String> wheel = new TimingWheel<>(10, 8, 0);
    advance(wheel, 500);
    wheel.schedule(1, 400, "overdue");

    assertEquals(List.of(1L), keys(advance(wheel, 100)));
  }

  @Test
  void everyEntryOfALargeBurstInOneTickIsHandedOutOnce() {
    TimingWheel<String> wheel = new TimingWheel<>(10, 512, 0);
    for (long key = 0; key < 50_000; key++) {
      wheel.schedule(key, 3_600_000, "burst");
    }

    List<Expired<String>> out = advance(wheel, 3_600_000);

    assertEquals(50_000, out.size());
    assertEquals(50_000, out.stream().map(Expired::key).distinct().count());
    assertEquals(0, wheel.size());
  }

  @Test
  void sinkThatThrowsDoesNotLoseTheRemainingEntries() {
    TimingWheel<String> wheel = new TimingWheel<>(10, 8, 0);
    wheel.schedule(1, 25, "a");
    wheel.schedule(2, 25, "b");
    wheel.schedule(3, 25, "c");
    Consumer<Expired<String>> failing = expired -> {
      throw new IllegalStateException("sink broke");
    };

    assertThrows(IllegalStateException.class, () -> wheel.advance(20, failing));

    assertEquals(2, wheel.size());
    assertEquals(List.of(2L, 3L), keys(advance(wheel, 20)));
  }

  @Test
  void deadlineBeyondEveryLevelIsHeldByASaturatedTopLevel() {
    TimingWheel<String> wheel = new TimingWheel<>(10, 512, 0);
    wheel.schedule(1, Long.MAX_VALUE, "end of time");
    wheel.schedule(2, 1_000, "soon");

    assertEquals(List.of(2L), keys(advance(wheel, 1_000)));
    assertTrue(wheel.contains(1));
    assertTrue(wheel.nextExpirationMs() > 1_000);
    assertTrue(wheel.cancel(1));
    assertEquals(Long.MAX_VALUE, wheel.nextExpirationMs());
  }

  @Test
  void constructorRejectsATickBelowOneAndAWheelBelowTwo() {
    assertThrows(IllegalArgumentException.class, () -> new TimingWheel<String>(0, 8, 0));
    assertThrows(IllegalArgumentException.class, () -> new TimingWheel<String>(10, 1, 0));
  }

  /**
   * Random schedule / cancel / advance against a map of what should be held. After every advance,
   * exactly the entries whose level-0 tick has started must have come out — each once, with its
   * latest value — and the next expiration must lie after now and no later than any remaining tick.
   * A tiny wheel (4 buckets) makes most entries cascade through several levels.
   */
  @Test
  void randomOperationsAgreeWithAReferenceModel() {
    long tickMs = 7;
    Random random = new Random(20251130L);
    TimingWheel<Long> wheel = new TimingWheel<>(tickMs, 4, 1_000);
    Map<Long, Expired<Long>> expected = new HashMap<>();
    long now = 1_000;
    long version = 0;

    for (int op = 0; op < 200_000; op++) {
      int choice = random.nextInt(10);
      long key = random.nextInt(400);
      if (choice < 5) {
        long deadline = random.nextInt(20) == 0
            ? now + random.nextInt(2_000_000)
            : now - 20 + random.nextInt(3_000);
        wheel.schedule(key, deadline, ++version);
        expected.put(key, new Expired<>(key, deadline, version));
      } else if (choice < 7) {
        assertEquals(expected.remove(key) != null, wheel.cancel(key));
      } else {
        long target = random.nextBoolean() ? now + random.nextInt(300) : wheel.nextExpirationMs();
        now = Math.max(now, Math.min(target, now + 50_000));
        List<Expired<Long>> out = new ArrayList<>();
        wheel.advance(now, out::add);
        for (Expired<Long> expired : out) {
          assertEquals(expected.remove(expired.key()), expired);
          assertTrue(Math.floorDiv(expired.deadlineMs(), tickMs) * tickMs <= now, "handed out early");
        }
        long earliestTick = Long.MAX_VALUE;
        for (Expired<Long> held : expected.values()) {
          long tickStart = Math.floorDiv(held.deadlineMs(), tickMs) * tickMs;
          long at = now;
          assertTrue(tickStart > now, () -> held + " should have come out at " + at);
          earliestTick = Math.min(earliestTick, tickStart);
        }
        long next = wheel.nextExpirationMs();
        assertTrue(next > now && next <= earliestTick, "next expiration " + next + " at " + now);
      }
      assertEquals(expected.size(), wheel.size());
    }
  }
}
