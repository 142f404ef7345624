package ax.schedule;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CronRuleTest {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
  private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
  private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

  private static List<Instant> next(CronRule rule, String after, int n) {
    List<Instant> out = new ArrayList<>();
    Instant t = Instant.parse(after);
    for (int i = 0; i < n; i++) {
      t = rule.nextAfter(t).orElseThrow();
      out.add(t);
    }
    return out;
  }

  private static List<Instant> instants(String... utc) {
    List<Instant> out = new ArrayList<>();
    for (String s : utc) {
      out.add(Instant.parse(s));
    }
    return out;
  }

  @Test
  void fiveFieldsAreMinuteFirstInTheScheduleTimeZone() {
    CronRule daily = CronRule.parse("0 2 * * *", SHANGHAI);
    assertEquals(instants("2026-12-01T18:00:00Z", "2026-12-02T18:00:00Z"),
        next(daily, "2026-12-01T10:00:00Z", 2), "02:00 Asia/Shanghai is 18:00 UTC the day before");
  }

  @Test
  void sixFieldsAreSecondsFirst() {
    CronRule everySecond = CronRule.parse("* * * * * *", ZoneOffset.UTC);
    assertEquals(instants("2026-12-01T00:00:01Z", "2026-12-01T00:00:02Z", "2026-12-01T00:00:03Z"),
        next(everySecond, "2026-12-01T00:00:00.000Z", 3));
    CronRule at30 = CronRule.parse("30 0 9 * * MON-FRI", ZoneOffset.UTC);
    assertEquals(instants("2026-12-04T09:00:30Z", "2026-12-07T09:00:30Z"),
        next(at30, "2026-12-04T08:00:00Z", 2), "Friday, then Monday");
  }

  @Test
  void theNextFireTimeIsStrictlyAfterTheGivenInstant() {
    CronRule everyMinute = CronRule.parse("* * * * *", ZoneOffset.UTC);
    assertEquals(Instant.parse("2026-12-01T00:01:00Z"),
        everyMinute.nextAfter(Instant.parse("2026-12-01T00:00:00Z")).orElseThrow());
    assertEquals(Instant.parse("2026-12-01T00:01:00Z"),
        everyMinute.nextAfter(Instant.parse("2026-12-01T00:00:59.999Z")).orElseThrow());
  }

  @Test
  void aDailyTimeInsideTheSpringForwardGapFiresLaterByTheGapLength() {
    // Berlin, 2026-03-29: 02:00 CET jumps to 03:00 CEST; 02:30 does not exist that day.
    CronRule daily = CronRule.parse("30 2 * * *", BERLIN);
    assertEquals(instants("2026-03-28T01:30:00Z", "2026-03-29T01:30:00Z", "2026-03-30T00:30:00Z"),
        next(daily, "2026-03-27T12:00:00Z", 3),
        "02:30 CET, then 03:30 CEST (= 01:30 UTC) on the day of the gap, then 02:30 CEST");
  }

  @Test
  void gapTimesThatLandOnRealMatchesAreOneOccurrence() {
    // Every 15 min through Berlin's gap: 02:00–02:45 do not exist and map onto 03:00–03:45, which are
    // matches themselves. Real time keeps a 15-minute spacing with no doubles.
    CronRule quarter = CronRule.parse("*/15 * * * *", BERLIN);
    assertEquals(instants("2026-03-29T00:45:00Z", "2026-03-29T01:00:00Z", "2026-03-29T01:15:00Z"),
        next(quarter, "2026-03-29T00:30:00Z", 3), "01:45 CET, 03:00 CEST, 03:15 CEST");
  }

  @Test
  void aDailyTimeInTheRepeatedHourFiresOnceAtItsFirstOccurrence() {
    // Berlin, 2026-10-25: 03:00 CEST falls back to 02:00 CET; 02:30 happens twice.
    CronRule daily = CronRule.parse("30 2 * * *", BERLIN);
    assertEquals(instants("2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"),
        next(daily, "2026-10-24T12:00:00Z", 2), "02:30 CEST only, not also 02:30 CET");
  }

  @Test
  void frequentSchedulesAreSilentDuringTheSecondPassOfTheRepeatedHour() {
    // New York, 2026-11-01: 02:00 EDT falls back to 01:00 EST; 01:00–01:59 happen twice.
    CronRule half = CronRule.parse("*/30 * * * *", NEW_YORK);
    assertEquals(instants("2026-11-01T05:00:00Z", "2026-11-01T05:30:00Z", "2026-11-01T07:00:00Z"),
        next(half, "2026-11-01T04:45:00Z", 3), "01:00 EDT, 01:30 EDT, then 02:00 EST: nothing at 01:00/01:30 EST");
    // Asked from inside the second pass, the next fire time is still later than the question.
    assertEquals(Instant.parse("2026-11-01T07:00:00Z"),
        half.nextAfter(Instant.parse("2026-11-01T06:10:00Z")).orElseThrow());
  }

  @Test
  void newYorksSpringForwardGapFollowsTheSameRule() {
    // 2026-03-08: 02:00 EST jumps to 03:00 EDT.
    CronRule daily = CronRule.parse("15 2 * * *", NEW_YORK);
    assertEquals(Instant.parse("2026-03-08T07:15:00Z"),
        daily.nextAfter(Instant.parse("2026-03-08T05:00:00Z")).orElseThrow(), "03:15 EDT");
  }

  @Test
  void fireTimesAlwaysIncreaseAcrossAYearOfTransitions() {
    for (ZoneId zone : List.of(BERLIN, NEW_YORK, ZoneId.of("Australia/Lord_Howe"))) {
      CronRule rule = CronRule.parse("*/30 * * * *", zone);
      Instant t = Instant.parse("2026-01-01T00:00:00Z");
      for (int i = 0; i < 2 * 24 * 366; i++) {
        Instant n = rule.nextAfter(t).orElseThrow();
        assertTrue(n.isAfter(t), zone + ": " + n + " after " + t);
        t = n;
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   ", "* * * *", "* * * * * * *", "61 * * * *", "* 25 * * *", "x * * * *",
      "0 0 30 2 *"})
  void malformedOrNeverFiringExpressionsAreRefusedWithAReason(String expression) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CronRule.parse(expression, ZoneOffset.UTC));
    assertTrue(e.getMessage().startsWith("cron: "), e.getMessage());
  }

  /** Found end to end: the next second after 12.261 was 13.261, so every occurrence fired 261 ms off the second. */
  @Test
  void fireTimesAreWholeSecondsWhateverTheFractionOfTheStartingPoint() {
    CronRule everySecond = CronRule.parse("* * * * * *", java.time.ZoneOffset.UTC);
    assertEquals(Instant.parse("2026-12-01T08:12:13Z"),
        everySecond.nextAfter(Instant.parse("2026-12-01T08:12:12.261Z")).orElseThrow());
    assertEquals(Instant.parse("2026-12-01T08:12:13Z"),
        everySecond.nextAfter(Instant.parse("2026-12-01T08:12:12Z")).orElseThrow());
    CronRule everyFiveSeconds = CronRule.parse("*/5 * * * * *", java.time.ZoneId.of("Asia/Shanghai"));
    assertEquals(Instant.parse("2026-12-01T08:12:15Z"),
        everyFiveSeconds.nextAfter(Instant.parse("2026-12-01T08:12:14.999Z")).orElseThrow());
    CronRule daily = CronRule.parse("0 2 * * *", java.time.ZoneId.of("Asia/Shanghai"));
    assertEquals(Instant.parse("2026-12-01T18:00:00Z"),
        daily.nextAfter(Instant.parse("2026-12-01T08:12:12.261Z")).orElseThrow());
  }
}
