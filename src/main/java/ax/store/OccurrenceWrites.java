package ax.store;

import ax.schedule.OccurrencePlanner.Misfired;
import ax.schedule.OccurrencePlanner.Occurrence;
import ax.schedule.OccurrencePlanner.Plan;
import ax.store.RecurringScheduleStore.CreatedOccurrence;
import ax.store.RecurringScheduleStore.ScheduleRow;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The plans of one materialisation pass as the array parameters of its three statements (occurrences,
 * misfire records, cursors), so a pass over many schedules costs three round trips, not three per
 * schedule.
 */
final class OccurrenceWrites {
  private final List<Long> ids = new ArrayList<>();
  private final List<Long> occurrenceSchedules = new ArrayList<>();
  private final List<OffsetDateTime> triggers = new ArrayList<>();
  private final List<OffsetDateTime> scheduled = new ArrayList<>();

  private final List<Long> misfireSchedules = new ArrayList<>();
  private final List<OffsetDateTime> firsts = new ArrayList<>();
  private final List<OffsetDateTime> lasts = new ArrayList<>();
  private final List<Long> counts = new ArrayList<>();
  private final List<String> policies = new ArrayList<>();

  private final List<ScheduleRow> schedules = new ArrayList<>();
  private final List<Plan> plans = new ArrayList<>();
  private final List<Boolean> ends = new ArrayList<>();

  /** @param endsSchedule the schedule is ENDED by this pass (its window or max_runs is used up) */
  void add(ScheduleRow s, Plan plan, boolean endsSchedule, LongSupplier newIds) {
    schedules.add(s);
    plans.add(plan);
    ends.add(endsSchedule);
    for (Occurrence o : plan.occurrences()) {
      ids.add(newIds.getAsLong());
      occurrenceSchedules.add(s.scheduleId());
      triggers.add(Times.toTimestamp(o.triggerTime()));
      scheduled.add(Times.toTimestamp(o.scheduledTime()));
    }
    for (Misfired m : plan.misfired()) {
      misfireSchedules.add(s.scheduleId());
      firsts.add(Times.toTimestamp(m.first()));
      lasts.add(Times.toTimestamp(m.last()));
      counts.add(m.count());
      policies.add(s.misfire());
    }
  }

  Tuple occurrences(Sql.Params p) {
    return p.set("ids", ids.toArray(new Long[0])).set("schedule_ids", occurrenceSchedules.toArray(new Long[0]))
        .set("triggers", triggers.toArray(new OffsetDateTime[0]))
        .set("scheduled", scheduled.toArray(new OffsetDateTime[0])).tuple();
  }

  Tuple misfires(Sql.Params p) {
    return p.set("schedule_ids", misfireSchedules.toArray(new Long[0]))
        .set("firsts", firsts.toArray(new OffsetDateTime[0])).set("lasts", lasts.toArray(new OffsetDateTime[0]))
        .set("counts", counts.toArray(new Long[0])).set("policies", policies.toArray(new String[0])).tuple();
  }

  /**
   * The new cursors. {@code runs} grows by the occurrences really inserted (a repeated plan inserts
   * none), and the latest scheduled time among them is the schedule's last fire time.
   */
  Tuple advance(Sql.Params p, List<CreatedOccurrence> created) {
    Map<Long, Long> createdBySchedule = new HashMap<>();
    Map<Long, Instant> lastBySchedule = new HashMap<>();
    for (CreatedOccurrence c : created) {
      createdBySchedule.merge(c.scheduleId(), 1L, Long::sum);
      lastBySchedule.merge(c.scheduleId(), c.scheduledTime(), (a, b) -> a.isAfter(b) ? a : b);
    }
    int n = schedules.size();
    Long[] scheduleIds = new Long[n];
    OffsetDateTime[] nextDues = new OffsetDateTime[n];
    Boolean[] ended = new Boolean[n];
    Long[] createdCounts = new Long[n];
    Long[] misfired = new Long[n];
    OffsetDateTime[] lastFires = new OffsetDateTime[n];
    for (int i = 0; i < n; i++) {
      long id = schedules.get(i).scheduleId();
      Plan plan = plans.get(i);
      scheduleIds[i] = id;
      nextDues[i] = Times.toTimestamp(plan.nextDue());
      ended[i] = ends.get(i);
      createdCounts[i] = createdBySchedule.getOrDefault(id, 0L);
      misfired[i] = plan.misfiredCount();
      lastFires[i] = Times.toTimestamp(lastBySchedule.get(id));
    }
    return p.set("schedule_ids", scheduleIds).set("next_dues", nextDues).set("ended", ended)
        .set("created", createdCounts).set("misfired", misfired).set("last_fires", lastFires).tuple();
  }
}
