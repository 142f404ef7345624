package ax.api;

import ax.clock.Rfc3339;
import ax.json.JsonText;
import ax.schedule.OccurrencePlanner;
import ax.schedule.Recurrence;
import ax.store.RecurringScheduleStore.ScheduleRow;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Schedules as the API answers them (openapi.yaml {@code Schedule}); every member present, null when unset. */
final class ScheduleJson {
  static final int PREVIEW = 5;

  private ScheduleJson() {
  }

  static JsonObject created(ScheduleRow s) {
    return new JsonObject().put("schedule_id", Long.toString(s.scheduleId())).put("status", s.status())
        .put("next_fire_times", times(nextFireTimes(s)));
  }

  static JsonObject full(ScheduleRow s) {
    List<Instant> next = nextFireTimes(s);
    return new JsonObject()
        .put("schedule_id", Long.toString(s.scheduleId()))
        .put("name", s.name())
        .put("cron", s.cron())
        .put("every_ms", s.everyMs())
        .put("after_ms", s.afterMs())
        .put("time_zone", s.timeZone())
        .put("start_at", time(s.startAt()))
        .put("end_at", time(s.endAt()))
        .put("max_runs", s.maxRuns())
        .put("misfire", s.misfire())
        .put("overlap", s.overlap())
        .put("task", JsonText.parseOrText(s.templateJson()))
        .put("status", s.status())
        .put("next_fire_time", next.isEmpty() ? null : time(next.get(0)))
        .put("next_fire_times", times(next))
        .put("last_fire_time", time(s.lastFireTime()))
        .put("runs", s.runs())
        .put("skipped", s.skipped())
        .put("misfired", s.misfired())
        .put("created_at", time(s.createdAt()))
        .put("updated_at", time(s.updatedAt()));
  }

  /**
   * The next due times from the cursor on, within the window and the runs left. A paused schedule shows
   * what would come if it were resumed now, before the misfire policy; an ended one, none.
   */
  static List<Instant> nextFireTimes(ScheduleRow s) {
    if ("ENDED".equals(s.status()) || s.nextDue() == null) {
      return List.of();
    }
    Optional<Recurrence> r;
    try {
      r = s.recurrence();
    } catch (RuntimeException e) {
      return List.of();
    }
    long left = s.maxRuns() == null ? PREVIEW : Math.max(0, Math.min(PREVIEW, s.maxRuns() - s.runs()));
    if (r.isEmpty()) {
      return left == 0 ? List.of() : List.of(s.nextDue());
    }
    return OccurrencePlanner.preview(r.get(), s.nextDue().minusMillis(1), s.endAt(), (int) left);
  }

  private static JsonArray times(List<Instant> times) {
    JsonArray out = new JsonArray();
    times.forEach(t -> out.add(time(t)));
    return out;
  }

  private static String time(Instant t) {
    return t == null ? null : Rfc3339.format(t.toEpochMilli());
  }
}
