package ax.schedule;

import ax.schedule.OccurrencePlanner.Cursor;
import ax.schedule.OccurrencePlanner.Misfired;
import ax.schedule.OccurrencePlanner.Occurrence;
import ax.schedule.OccurrencePlanner.Plan;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OccurrencePlannerTest {
  private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");
  private static final ScheduleSettings SETTINGS = new ScheduleSettings(5_000, 3, 1_000);
  private static final FixedRate EVERY_SECOND = new FixedRate(T0, 1_000);

  private static Instant at(long seconds) {
    return T0.plusSeconds(seconds);
  }

  private static Cursor cursor(Recurrence r, Instant nextDue, MisfirePolicy misfire) {
    return new Cursor(r, nextDue, null, null, 0, misfire);
  }

  private static List<Instant> scheduled(Plan plan) {
    return plan.occurrences().stream().map(Occurrence::scheduledTime).toList();
  }

  @Test
  void onTimeOccurrencesAreEveryDueTimeUpToTheHorizonEachFiringAtItsOwnTime() {
    Plan plan = OccurrencePlanner.plan(cursor(EVERY_SECOND, at(10), MisfirePolicy.FIRE_ONCE), at(9), at(13), SETTINGS);
    assertEquals(List.of(at(10), at(11), at(12), at(13)), scheduled(plan));
    plan.occurrences().forEach(o -> assertEquals(o.scheduledTime(), o.triggerTime()));
    assertEquals(at(14), plan.nextDue(), "the cursor moves to the first due time past the horizon");
    assertTrue(plan.misfired().isEmpty());
  }

  @Test
  void aDueTimeJustPassedWithinTheThresholdIsCreatedLateNotMisfired() {
    Plan plan = OccurrencePlanner.plan(cursor(EVERY_SECOND, at(10), MisfirePolicy.SKIP), at(14), at(14), SETTINGS);
    assertEquals(List.of(at(10), at(11), at(12), at(13), at(14)), scheduled(plan), "4 s late < 5 s threshold");
    assertTrue(plan.misfired().isEmpty());
  }

  @Test
  void fireOnceFiresTheLatestMissedTimeNowAndRecordsTheRest() {
    // Down from 10 s to 100 s: due times 10…94 are more than 5 s old at 100 s.
    Plan plan = OccurrencePlanner.plan(cursor(EVERY_SECOND, at(10), MisfirePolicy.FIRE_ONCE), at(100), at(101),
        SETTINGS);
    assertEquals(new Occurrence(at(94), at(100)), plan.occurrences().get(0), "one catch-up, now");
    assertEquals(List.of(at(94), at(95), at(96), at(97), at(98), at(99), at(100), at(101)), scheduled(plan));
    assertEquals(List.of(new Misfired(at(10), at(93), 84L)), plan.misfired());
    assertEquals(at(102), plan.nextDue());
  }

  @Test
  void fireAllFiresTheLatestMissedTimesUpToTheCapAndRecordsTheOlderOnes() {
    Plan plan = OccurrencePlanner.plan(cursor(EVERY_SECOND, at(10), MisfirePolicy.FIRE_ALL), at(100), at(95),
        SETTINGS);
    assertEquals(List.of(at(92), at(93), at(94), at(95)), scheduled(plan), "cap 3: 92, 93, 94 now; 95 on time");
    assertEquals(List.of(at(100), at(100), at(100), at(95)),
        plan.occurrences().stream().map(Occurrence::triggerTime).toList());
    assertEquals(List.of(new Misfired(at(10), at(91), 82L)), plan.misfired());
  }

  @Test
  void fireAllUnderTheCapFiresEveryMissedTime() {
    Plan plan = OccurrencePlanner.plan(cursor(EVERY_SECOND, at(10), MisfirePolicy.FIRE_ALL), at(17), at(17),
        SETTINGS);
    assertEquals(List.of(at(10), at(11), at(12), at(13), at(14), at(15), at(16), at(17)), scheduled(plan));
    assertTrue(plan.misfired().isEmpty(), "10 and 11 missed the 5 s threshold; both fit the cap of 3");
    assertEquals(List.of(at(17), at(17)), plan.occurrences().subList(0, 2).stream().map(Occurrence::triggerTime)
        .toList(), "the missed ones fire now");
  }

  @Test
  void skipRecordsEveryMissedTimeAndGoesOnFromNow() {
    Plan plan = OccurrencePlanner.plan(cursor(EVERY_SECOND, at(10), MisfirePolicy.SKIP), at(100), at(97), SETTINGS);
    assertEquals(List.of(at(95), at(96), at(97)), scheduled(plan));
    assertEquals(List.of(new Misfired(at(10), at(94), 85L)), plan.misfired());
  }

  @Test
  void maxRunsEndsTheScheduleAndMisfiredTimesDoNotCountAsRuns() {
    Cursor c = new Cursor(EVERY_SECOND, at(10), null, 5L, 2, MisfirePolicy.FIRE_ONCE);
    Plan plan = OccurrencePlanner.plan(c, at(100), at(200), SETTINGS);
    assertEquals(List.of(at(94), at(95), at(96)), scheduled(plan), "3 runs left: the catch-up and two more");
    assertEquals(84L, plan.misfiredCount());
    assertTrue(plan.ended());
  }

  @Test
  void endAtEndsTheScheduleAtTheLastDueTimeInItsWindow() {
    Cursor c = new Cursor(EVERY_SECOND, at(10), at(12).plusMillis(500), null, 0, MisfirePolicy.FIRE_ONCE);
    Plan plan = OccurrencePlanner.plan(c, at(9), at(60), SETTINGS);
    assertEquals(List.of(at(10), at(11), at(12)), scheduled(plan));
    assertTrue(plan.ended());
    assertNull(plan.nextDue());
  }

  @Test
  void anEndedScheduleCreatesNothing() {
    Plan plan = OccurrencePlanner.plan(cursor(EVERY_SECOND, null, MisfirePolicy.FIRE_ALL), at(9), at(60), SETTINGS);
    assertTrue(plan.occurrences().isEmpty());
    assertTrue(plan.ended());
  }

  @Test
  void aVeryLongOutageIsRecordedAsARangeWithoutVisitingEveryDueTime() {
    // Down for 30 days with a 1 s rate: 2.6 million due times; the planner visits at most 1 000.
    Instant now = T0.plusSeconds(30L * 86_400);
    Plan plan = OccurrencePlanner.plan(cursor(EVERY_SECOND, at(10), MisfirePolicy.SKIP), now, now, SETTINGS);
    long missed = 30L * 86_400 - 5 - 10; // 10 … now-6 s
    assertEquals(missed, plan.misfiredCount(), "a fixed rate counts the range exactly");
    assertEquals(List.of(now.minusSeconds(5), now.minusSeconds(4), now.minusSeconds(3), now.minusSeconds(2),
        now.minusSeconds(1), now), scheduled(plan));
  }

  @Test
  void aCronScheduleMissedForMonthsRecordsAnUncountedRange() {
    Recurrence everyMinute = CronRule.parse("* * * * *", ZoneOffset.UTC).asRecurrence();
    Instant now = T0.plusSeconds(90L * 86_400);
    Plan plan = OccurrencePlanner.plan(cursor(everyMinute, T0, MisfirePolicy.FIRE_ONCE), now, now.plusSeconds(59),
        SETTINGS);
    Misfired uncounted = plan.misfired().get(plan.misfired().size() - 1);
    assertNull(uncounted.count(), "too long to visit, cannot be counted without visiting");
    assertEquals(T0.plusSeconds(60L * 1_000), uncounted.first(), "starts where the visit stopped");
    assertEquals(new Occurrence(T0.plusSeconds(60L * 999), now), plan.occurrences().get(0),
        "fire_once fires the latest time visited");
    assertEquals(now, plan.occurrences().get(1).scheduledTime(), "then on time again");
  }

  @Test
  void previewListsTheNextDueTimesWithinTheWindow() {
    assertEquals(List.of(at(1), at(2), at(3)), OccurrencePlanner.preview(EVERY_SECOND, T0, null, 3));
    assertEquals(List.of(at(1), at(2)), OccurrencePlanner.preview(EVERY_SECOND, T0, at(2), 5));
  }
}
