package ax.store;

import ax.leader.Fence;
import ax.schedule.CronRule;
import ax.schedule.FixedRate;
import ax.schedule.MisfirePolicy;
import ax.schedule.OccurrencePlanner;
import ax.schedule.OccurrencePlanner.Cursor;
import ax.schedule.OccurrencePlanner.Occurrence;
import ax.schedule.OccurrencePlanner.Plan;
import ax.schedule.Recurrence;
import ax.schedule.ScheduleSettings;
import ax.wheel.ScheduledTask;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Recurring schedules (issue 12) and the creation of their occurrences. An occurrence is an ordinary
 * task carrying {@code schedule_id} and {@code scheduled_time}; the leader creates it when its due time
 * enters the load window, in the transaction that moves the schedule's cursor, under the lease
 * ({@link Sql#LEASE} takes a share lock on the lease row, so a takeover waits for this transaction and
 * a stale leader's transaction finds no lease and writes nothing). The unique key on
 * (schedule_id, scheduled_time) turns a repeated plan into no rows, never a second copy.
 */
public final class RecurringScheduleStore {

  private static final String COLUMNS = """
      schedule_id, tenant_id, api_key, name, cron, every_ms, after_ms, time_zone, start_at, end_at, max_runs,
      misfire, overlap, template::text AS template, status, next_due, runs, skipped, misfired, last_fire_time,
      created_at, updated_at""";

  private static final Sql INSERT = Sql.of("""
      INSERT INTO schedules (schedule_id, tenant_id, api_key, name, cron, every_ms, after_ms, time_zone, start_at,
                             end_at, max_runs, misfire, overlap, template, next_due)
      VALUES (:id, :tenant, :api_key, :name, :cron, :every_ms, :after_ms, :time_zone, :start_at, :end_at, :max_runs,
              :misfire, :overlap, :template::text::jsonb, :next_due)
      RETURNING\s""" + COLUMNS);

  private static final Sql FIND = Sql.of(
      "SELECT " + COLUMNS + " FROM schedules WHERE schedule_id = :id AND tenant_id = :tenant");

  /**
   * The active schedules with a due time inside the window, locked for this transaction (another
   * materialiser — there is none while the lease holds, but a slow old one might still be finishing —
   * skips them), together with the database's now.
   */
  private static final Sql LOCK_DUE = Sql.of("""
      WITH %s
      SELECT now() AS db_now, %s
        FROM schedules, lease
       WHERE status = 'ACTIVE' AND next_due <= now() + :window_ms * interval '1 millisecond'
       ORDER BY next_due
       LIMIT :limit
         FOR UPDATE OF schedules SKIP LOCKED""".formatted(Sql.LEASE, COLUMNS));

  /**
   * Occurrences as tasks, their fields from the schedule's template (validated and completed with the
   * defaults when the schedule was stored; the payload is copied as PostgreSQL holds it, exactly). One
   * that exists already (same schedule and scheduled time) is skipped. A processor task starts DELAYED
   * even when due, like a submitted one (TaskSubmitter): the claim hands it to the executor dispatch.
   */
  private static final Sql INSERT_OCCURRENCES = Sql.of(insertOccurrences("u.id", "u.trig", "u.sched", "u.nth > 1") + """
        FROM (SELECT v.*, row_number() OVER (PARTITION BY v.sid ORDER BY v.sched) AS nth
                FROM unnest(:ids::bigint[], :schedule_ids::bigint[], :triggers::timestamptz[],
                            :scheduled::timestamptz[]) AS v(id, sid, trig, sched)) u
        JOIN schedules s ON s.schedule_id = u.sid
      ON CONFLICT (schedule_id, scheduled_time) WHERE schedule_id IS NOT NULL DO NOTHING
      RETURNING task_id, schedule_id, scheduled_time, next_trigger_time, priority, status, shard_total""");

  /**
   * {@code INSERT INTO tasks … SELECT} of occurrences: every column from the schedule row {@code s}'s
   * template, and the id, trigger time and scheduled time from the given expressions; the caller adds
   * the {@code FROM}. One place says how a template becomes a task.
   *
   * <p>Overlap: under {@code skip} or {@code buffer_one} an occurrence is created CREATED ("held") when
   * an earlier one of its schedule has not ended — one stored already ({@code tasks_schedule_pending}),
   * or an earlier one of the same insert ({@code earlierInThisInsert}). Whether it runs is decided when
   * the last one under way ends (V10's {@code ax_schedule_after_occurrence}); the schedule row is locked
   * by every caller, so that decision cannot miss an occurrence being held here.
   */
  private static String insertOccurrences(String id, String trigger, String scheduled, String earlierInThisInsert) {
    return """
        INSERT INTO tasks (task_id, tenant_id, api_key, task_type, trigger_time, next_trigger_time, status, priority,
                           max_retry, timeout_ms, callback_url, processor, payload, shard_total, schedule_id,
                           scheduled_time, notify_url)
        SELECT %1$s, s.tenant_id, s.api_key, s.template->>'task_type', %2$s, %2$s,
               CASE WHEN s.overlap <> 'allow'
                         AND (%4$s OR EXISTS (SELECT 1 FROM tasks p
                                               WHERE p.schedule_id = s.schedule_id
                                                 AND p.status IN ('CREATED','DELAYED','READY','DISPATCHING','RUNNING')))
                    THEN 'CREATED'
                    WHEN s.template->>'processor' IS NOT NULL OR %2$s > now() THEN 'DELAYED' ELSE 'READY' END,
               (s.template->>'priority')::smallint, (s.template->>'max_retry')::smallint,
               (s.template->>'timeout_ms')::int, s.template->>'callback_url', s.template->>'processor',
               s.template->'payload', COALESCE((s.template->>'shard_total')::int, 1), s.schedule_id, %3$s,
               s.template->>'notify_url'
        """.formatted(id, trigger, scheduled, earlierInThisInsert);
  }

  private static final Sql INSERT_MISFIRES = Sql.of("""
      INSERT INTO schedule_misfires (schedule_id, first_due, last_due, count, policy)
      SELECT * FROM unnest(:schedule_ids::bigint[], :firsts::timestamptz[], :lasts::timestamptz[], :counts::bigint[],
                           :policies::text[])
      ON CONFLICT (schedule_id, first_due) DO NOTHING""");

  /** The cursor moves; {@code runs} counts occurrences that were really created. */
  private static final Sql ADVANCE = Sql.of("""
      UPDATE schedules s SET
        next_due       = u.next_due,
        status         = CASE WHEN u.ended THEN 'ENDED' ELSE s.status END,
        runs           = s.runs + u.created,
        misfired       = s.misfired + u.misfired,
        last_fire_time = COALESCE(u.last_fire, s.last_fire_time),
        updated_at     = now()
        FROM unnest(:schedule_ids::bigint[], :next_dues::timestamptz[], :ended::boolean[], :created::bigint[],
                    :misfired::bigint[], :last_fires::timestamptz[])
             AS u(schedule_id, next_due, ended, created, misfired, last_fire)
       WHERE s.schedule_id = u.schedule_id""");

  /**
   * Occurrences created ahead of time and not dispatched yet, cancelled when their schedule is deleted;
   * they stay as CANCELLED tasks, the record of due times that did not run (API.md).
   */
  private static final Sql CANCEL_PENDING = Sql.of("""
      WITH cancelled AS (
        UPDATE tasks SET status = 'CANCELLED', error = :why, updated_at = now()
         WHERE schedule_id = :id AND status IN ('CREATED','DELAYED','READY')
        RETURNING task_id
      )
      UPDATE tasks SET status = 'CANCELLED', error = :why, updated_at = now()
       WHERE parent_id IN (SELECT task_id FROM cancelled) AND status IN ('CREATED','DELAYED','READY')""");

  private static final Sql PAUSE = Sql.of("""
      UPDATE schedules SET status = 'PAUSED', updated_at = now()
       WHERE schedule_id = :id AND tenant_id = :tenant AND status = 'ACTIVE'
      RETURNING\s""" + COLUMNS);

  /**
   * Pausing and replacing take back the occurrences created ahead that have not fired (attempt 0: a
   * retry pending is a run in progress and stays); they never ran, so they leave {@code runs}. Pausing
   * also moves the cursor back to the first of them ({@code :rewind}): they were only made early because
   * of the load window, and on resume they are made again — on time, or through the misfire policy if
   * their time passed meanwhile — instead of leaving a hole as long as the window. A replaced definition
   * keeps the cursor its first due time set.
   */
  private static final Sql TAKE_BACK = Sql.of("""
      WITH gone AS (
        DELETE FROM tasks WHERE schedule_id = :id AND status IN ('CREATED','DELAYED','READY') AND attempt = 0
                            AND NOT has_dependants
        RETURNING task_id, scheduled_time
      ), shards AS (
        DELETE FROM tasks WHERE parent_id IN (SELECT task_id FROM gone)
      ), counted AS (
        SELECT count(*) AS n, min(scheduled_time) AS first FROM gone
      )
      UPDATE schedules s SET runs = greatest(0, s.runs - c.n),
                             next_due = CASE WHEN :rewind THEN LEAST(s.next_due, c.first) ELSE s.next_due END
        FROM counted c
       WHERE s.schedule_id = :id
      RETURNING\s""" + COLUMNS);

  /**
   * A new definition (PUT) for a schedule that has not ended; its status (ACTIVE or PAUSED) and counters
   * stay, its cursor starts over from the new definition's first due time.
   */
  private static final Sql REPLACE = Sql.of("""
      UPDATE schedules SET name = :name, cron = :cron, every_ms = :every_ms, after_ms = :after_ms,
                           time_zone = :time_zone, start_at = :start_at, end_at = :end_at, max_runs = :max_runs,
                           misfire = :misfire, overlap = :overlap, template = :template::text::jsonb,
                           next_due = :next_due, updated_at = now()
       WHERE schedule_id = :id AND tenant_id = :tenant AND status <> 'ENDED'
      RETURNING\s""" + COLUMNS);

  /** The cursor is where pausing left it: due times missed meanwhile go through the misfire policy. */
  private static final Sql RESUME = Sql.of("""
      UPDATE schedules SET status = 'ACTIVE', updated_at = now()
       WHERE schedule_id = :id AND tenant_id = :tenant AND status = 'PAUSED'
      RETURNING\s""" + COLUMNS);

  private static final Sql END = Sql.of("""
      UPDATE schedules SET status = 'ENDED', next_due = NULL, updated_at = now()
       WHERE schedule_id = :id AND tenant_id = :tenant AND status <> 'ENDED'
      RETURNING\s""" + COLUMNS);

  /** One occurrence now (API "trigger"), outside the sequence: it does not move the cursor. */
  private static final Sql TRIGGER = Sql.of("""
      WITH s AS (
        UPDATE schedules SET runs = runs + 1, last_fire_time = date_trunc('milliseconds', now()), updated_at = now()
         WHERE schedule_id = :id AND tenant_id = :tenant AND status <> 'ENDED'
        RETURNING *
      ), t AS (
        SELECT date_trunc('milliseconds', now()) AS at
      )
      """ + insertOccurrences(":task_id", "t.at", "t.at", "false") + """
        FROM s, t
      RETURNING task_id, schedule_id, scheduled_time, next_trigger_time, priority, status, shard_total""");

  private static final Sql LIST = Sql.of("""
      SELECT\s""" + COLUMNS + """
        FROM schedules
       WHERE tenant_id = :tenant AND (:status::text IS NULL OR status = :status)
         AND (:after_created::timestamptz IS NULL OR (created_at, schedule_id) < (:after_created, :after_id))
       ORDER BY created_at DESC, schedule_id DESC
       LIMIT :limit""");

  /** The status of an occurrence held back by the overlap policy. */
  private static final String HELD = "CREATED";

  private final Pool pool;

  public RecurringScheduleStore(Pool pool) {
    this.pool = pool;
  }

  /** A schedule as stored. {@code templateJson} is the occurrence template, exact JSON text. */
  public record ScheduleRow(long scheduleId, String tenantId, String apiKey, String name, String cron, Long everyMs,
                            Long afterMs, String timeZone, Instant startAt, Instant endAt, Long maxRuns,
                            String misfire, String overlap, String templateJson, String status, Instant nextDue,
                            long runs, long skipped, long misfired, Instant lastFireTime, Instant createdAt,
                            Instant updatedAt) {

    /** When occurrences are due; a fixed delay has no sequence known in advance (empty). */
    public Optional<Recurrence> recurrence() {
      if (cron != null) {
        return Optional.of(CronRule.parse(cron, ZoneId.of(timeZone)).asRecurrence());
      }
      if (everyMs != null) {
        return Optional.of(new FixedRate(startAt, everyMs));
      }
      return Optional.empty();
    }
  }

  /** Stores a new schedule; {@code row.nextDue()} is its first due time. */
  public Future<ScheduleRow> create(ScheduleRow row) {
    return pool.preparedQuery(INSERT.text()).execute(INSERT.params()
        .set("id", row.scheduleId()).set("tenant", row.tenantId()).set("api_key", row.apiKey())
        .set("name", row.name()).set("cron", row.cron()).set("every_ms", row.everyMs())
        .set("after_ms", row.afterMs()).set("time_zone", row.timeZone()).set("start_at", Times.toTimestamp(row.startAt()))
        .set("end_at", Times.toTimestamp(row.endAt())).set("max_runs", row.maxRuns()).set("misfire", row.misfire())
        .set("overlap", row.overlap()).set("template", row.templateJson())
        .set("next_due", Times.toTimestamp(row.nextDue())).tuple())
        .map(rows -> read(rows.iterator().next()));
  }

  public Future<Optional<ScheduleRow>> find(String tenantId, long scheduleId) {
    return pool.preparedQuery(FIND.text()).execute(FIND.params().set("id", scheduleId).set("tenant", tenantId).tuple())
        .map(rows -> rows.size() == 0 ? Optional.empty() : Optional.of(read(rows.iterator().next())));
  }

  /** Pauses an ACTIVE schedule and takes back what it created ahead; empty when it is not ACTIVE (or not theirs). */
  public Future<Optional<ScheduleRow>> pause(String tenantId, long scheduleId) {
    return pool.withTransaction(conn -> conn.preparedQuery(PAUSE.text())
        .execute(PAUSE.params().set("id", scheduleId).set("tenant", tenantId).tuple())
        .compose(rows -> rows.size() == 0 ? Future.succeededFuture(Optional.<ScheduleRow>empty())
            : conn.preparedQuery(TAKE_BACK.text()).execute(TAKE_BACK.params().set("id", scheduleId)
                .set("rewind", true).tuple())
            .map(updated -> Optional.of(read(updated.iterator().next())))));
  }

  /**
   * Replaces the definition of a schedule that has not ended ({@code row} carries the new one and its
   * first due time); empty when it has ended or is not theirs.
   */
  public Future<Optional<ScheduleRow>> replace(ScheduleRow row) {
    return pool.withTransaction(conn -> conn.preparedQuery(REPLACE.text()).execute(REPLACE.params()
            .set("id", row.scheduleId()).set("tenant", row.tenantId()).set("name", row.name()).set("cron", row.cron())
            .set("every_ms", row.everyMs()).set("after_ms", row.afterMs()).set("time_zone", row.timeZone())
            .set("start_at", Times.toTimestamp(row.startAt())).set("end_at", Times.toTimestamp(row.endAt()))
            .set("max_runs", row.maxRuns()).set("misfire", row.misfire()).set("overlap", row.overlap())
            .set("template", row.templateJson()).set("next_due", Times.toTimestamp(row.nextDue())).tuple())
        .compose(rows -> rows.size() == 0 ? Future.succeededFuture(Optional.<ScheduleRow>empty())
            : conn.preparedQuery(TAKE_BACK.text()).execute(TAKE_BACK.params().set("id", row.scheduleId())
                .set("rewind", false).tuple())
            .map(updated -> Optional.of(read(updated.iterator().next())))));
  }

  /** Resumes a PAUSED schedule; empty when it is not PAUSED (or not theirs). */
  public Future<Optional<ScheduleRow>> resume(String tenantId, long scheduleId) {
    return pool.preparedQuery(RESUME.text()).execute(RESUME.params().set("id", scheduleId).set("tenant", tenantId)
        .tuple()).map(rows -> rows.size() == 0 ? Optional.empty() : Optional.of(read(rows.iterator().next())));
  }

  /** Ends a schedule (DELETE) and cancels its pending occurrences; empty when it had ended (or is not theirs). */
  public Future<Optional<ScheduleRow>> end(String tenantId, long scheduleId) {
    return pool.withTransaction(conn -> conn.preparedQuery(END.text())
        .execute(END.params().set("id", scheduleId).set("tenant", tenantId).tuple())
        .compose(rows -> rows.size() == 0 ? Future.succeededFuture(Optional.<ScheduleRow>empty())
            : cancelPending(conn, scheduleId, "schedule deleted").map(n -> Optional.of(read(rows.iterator().next())))));
  }

  private static Future<Integer> cancelPending(SqlConnection conn, long scheduleId, String why) {
    return conn.preparedQuery(CANCEL_PENDING.text())
        .execute(CANCEL_PENDING.params().set("id", scheduleId).set("why", why).tuple()).map(rows -> rows.rowCount());
  }

  /**
   * An occurrence created on demand: it and its shards, for the wheel. {@code held}: it waits in CREATED
   * for the one under way (overlap skip or buffer_one) and must not go to the wheel yet.
   */
  public record Triggered(List<ScheduledTask> tasks, boolean held) {
    public long taskId() {
      return tasks.get(0).taskId();
    }
  }

  /**
   * One occurrence now (and its shards, for a sharded template; ids from {@code shardIds}); empty when
   * the schedule has ended (or is not theirs).
   */
  public Future<Optional<Triggered>> trigger(String tenantId, long scheduleId, long taskId, LongSupplier shardIds) {
    return pool.withTransaction(conn -> conn.preparedQuery(TRIGGER.text()).execute(TRIGGER.params()
        .set("id", scheduleId).set("tenant", tenantId).set("task_id", taskId).tuple()).compose(rows -> {
          if (rows.size() == 0) {
            return Future.succeededFuture(Optional.<Triggered>empty());
          }
          CreatedOccurrence c = created(rows.iterator().next(), shardIds);
          return insertShards(conn, List.of(c)).map(v -> Optional.of(new Triggered(c.forWheel(), c.held())));
        }));
  }

  /** A page of the tenant's schedules, newest first, after {@code (afterCreated, afterId)} when given. */
  public Future<List<ScheduleRow>> list(String tenantId, String status, OffsetDateTime afterCreated, Long afterId,
                                        int limit) {
    return pool.preparedQuery(LIST.text()).execute(LIST.params().set("tenant", tenantId).set("status", status)
        .set("after_created", afterCreated).set("after_id", afterId).set("limit", limit).tuple())
        .map(rows -> {
          List<ScheduleRow> out = new ArrayList<>(rows.size());
          rows.forEach(r -> out.add(read(r)));
          return out;
        });
  }

  /** What one materialisation pass did. {@code toWheel}: the new occurrences, for the leader's wheel. */
  public record Materialised(int schedules, int created, long misfired, List<ScheduledTask> toWheel) {
  }

  /**
   * Creates the occurrences of up to {@code limit} active schedules whose due times enter the next
   * {@code windowMs}, all in one transaction under {@code fence}. Without the lease it writes nothing.
   */
  public Future<Materialised> materialiseDue(Fence fence, long windowMs, int limit, ScheduleSettings settings,
                                             LongSupplier ids) {
    return pool.withTransaction(conn -> conn.preparedQuery(LOCK_DUE.text())
        .execute(LOCK_DUE.params().fence(fence).set("window_ms", windowMs).set("limit", limit).tuple())
        .compose(rows -> {
          if (rows.size() == 0) {
            return Future.succeededFuture(new Materialised(0, 0, 0, List.of()));
          }
          Instant now = null;
          List<ScheduleRow> due = new ArrayList<>(rows.size());
          for (Row r : rows) {
            now = r.getOffsetDateTime("db_now").toInstant();
            due.add(read(r));
          }
          return write(conn, due, now, now.plusMillis(windowMs), settings, ids);
        }));
  }

  private Future<Materialised> write(SqlConnection conn, List<ScheduleRow> due, Instant now, Instant horizon,
                                     ScheduleSettings settings, LongSupplier ids) {
    OccurrenceWrites writes = new OccurrenceWrites();
    long misfired = 0;
    for (ScheduleRow s : due) {
      Plan plan = plan(s, now, horizon, settings);
      // A fixed delay's plan always leaves the cursor empty (the occurrence's end sets it): it ends only
      // when its limits say so.
      boolean ends = s.afterMs() == null ? plan.ended() : fixedDelayDone(s);
      writes.add(s, plan, ends, ids);
      misfired += plan.misfiredCount();
    }
    long misfiredTotal = misfired;
    return conn.preparedQuery(INSERT_OCCURRENCES.text()).execute(writes.occurrences(INSERT_OCCURRENCES.params()))
        .compose(rows -> {
          List<CreatedOccurrence> created = new ArrayList<>(rows.rowCount());
          rows.forEach(r -> created.add(created(r, ids)));
          return insertShards(conn, created)
              .compose(v -> conn.preparedQuery(INSERT_MISFIRES.text()).execute(writes.misfires(INSERT_MISFIRES.params())))
              .compose(v -> conn.preparedQuery(ADVANCE.text()).execute(writes.advance(ADVANCE.params(), created)))
              .map(v -> new Materialised(due.size(), created.size(), misfiredTotal,
                  created.stream().filter(c -> !c.held()).flatMap(c -> c.forWheel().stream()).toList()));
        });
  }

  /** A schedule whose definition can no longer be read (a zone removed from the JVM's data) ends. */
  private static Plan plan(ScheduleRow s, Instant now, Instant horizon, ScheduleSettings settings) {
    Optional<Recurrence> recurrence;
    try {
      recurrence = s.recurrence();
    } catch (RuntimeException e) {
      return new Plan(List.of(), List.of(), null);
    }
    if (recurrence.isEmpty()) {
      if (fixedDelayDone(s)) {
        return new Plan(List.of(), List.of(), null);
      }
      // Fixed delay: the one known due time, run now if it passed; the next is set when this one ends.
      Occurrence only = new Occurrence(s.nextDue(), s.nextDue().isBefore(now) ? now : s.nextDue());
      return new Plan(List.of(only), List.of(), null);
    }
    Cursor cursor = new Cursor(recurrence.get(), s.nextDue(), s.endAt(), s.maxRuns(), s.runs(),
        MisfirePolicy.fromWire(s.misfire()));
    return OccurrencePlanner.plan(cursor, now, horizon, settings);
  }

  /** A fixed-delay schedule has run max_runs times, or its next due time lies past end_at. */
  private static boolean fixedDelayDone(ScheduleRow s) {
    return s.maxRuns() != null && s.runs() >= s.maxRuns() || s.endAt() != null && s.nextDue().isAfter(s.endAt());
  }

  /**
   * An occurrence the insert really created, with the ids of its shards (none unless its template is
   * sharded); {@code held} ones wait for the one under way (overlap).
   */
  record CreatedOccurrence(long taskId, long scheduleId, Instant scheduledTime, Instant nextTriggerTime,
                           int priority, boolean held, long[] shardIds) {
    /** The occurrence and its shards: the wheel takes both, like a submitted sharded task's. */
    List<ScheduledTask> forWheel() {
      List<ScheduledTask> out = new ArrayList<>(1 + shardIds.length);
      out.add(new ScheduledTask(taskId, nextTriggerTime.toEpochMilli(), priority));
      for (long shard : shardIds) {
        out.add(new ScheduledTask(shard, nextTriggerTime.toEpochMilli(), priority));
      }
      return out;
    }
  }

  /** A row the occurrence insert returned; a sharded one gets its shards' ids here. */
  private static CreatedOccurrence created(Row r, LongSupplier ids) {
    int shards = r.getInteger("shard_total");
    long[] shardIds = new long[shards > 1 ? shards : 0];
    for (int i = 0; i < shardIds.length; i++) {
      shardIds[i] = ids.getAsLong();
    }
    return new CreatedOccurrence(r.getLong("task_id"), r.getLong("schedule_id"),
        r.getOffsetDateTime("scheduled_time").toInstant(), r.getOffsetDateTime("next_trigger_time").toInstant(),
        r.getShort("priority"), HELD.equals(r.getString("status")), shardIds);
  }

  /** The shards of the sharded occurrences just created, in one statement (none: no round trip). */
  private static Future<Void> insertShards(SqlConnection conn, List<CreatedOccurrence> created) {
    List<Long> shardIds = new ArrayList<>();
    List<Long> parents = new ArrayList<>();
    List<Integer> indexes = new ArrayList<>();
    for (CreatedOccurrence c : created) {
      for (int i = 0; i < c.shardIds().length; i++) {
        shardIds.add(c.shardIds()[i]);
        parents.add(c.taskId());
        indexes.add(i);
      }
    }
    if (shardIds.isEmpty()) {
      return Future.succeededFuture();
    }
    return conn.preparedQuery(TaskStore.INSERT_SHARDS.text()).execute(TaskStore.INSERT_SHARDS.params()
        .set("shard_ids", shardIds.toArray(new Long[0])).set("parents", parents.toArray(new Long[0]))
        .set("indexes", indexes.toArray(new Integer[0])).tuple()).mapEmpty();
  }

  static ScheduleRow read(Row r) {
    return new ScheduleRow(r.getLong("schedule_id"), r.getString("tenant_id"), r.getString("api_key"),
        r.getString("name"), r.getString("cron"), r.getLong("every_ms"), r.getLong("after_ms"),
        r.getString("time_zone"), instant(r, "start_at"), instant(r, "end_at"), r.getLong("max_runs"),
        r.getString("misfire"), r.getString("overlap"), r.getString("template"), r.getString("status"),
        instant(r, "next_due"), r.getLong("runs"), r.getLong("skipped"), r.getLong("misfired"),
        instant(r, "last_fire_time"), instant(r, "created_at"), instant(r, "updated_at"));
  }

  private static Instant instant(Row r, String column) {
    OffsetDateTime t = r.getOffsetDateTime(column);
    return t == null ? null : t.toInstant();
  }
}
