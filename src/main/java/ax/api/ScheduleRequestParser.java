package ax.api;

import ax.clock.Rfc3339;
import ax.json.JsonText;
import ax.schedule.CronRule;
import ax.schedule.FixedRate;
import ax.schedule.MisfirePolicy;
import ax.schedule.OccurrencePlanner;
import ax.schedule.OverlapPolicy;
import ax.schedule.Recurrence;
import io.vertx.core.json.JsonObject;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Set;

/**
 * Checks a schedule definition against API.md "Recurring schedules" and turns it into a
 * {@link Definition}: exactly one of {@code cron} / {@code every_ms} / {@code after_ms}, an IANA zone
 * for cron, a window, the policies, and the occurrence template — checked by {@link TaskRequestParser}
 * like a submission, with {@code task.} in front of the field it names. No I/O.
 */
public final class ScheduleRequestParser {
  /** Longest period: a schedule that fires less than once a year is a calendar entry, not a schedule. */
  static final long MAX_PERIOD_MS = 366L * 86_400_000L;
  private static final Set<String> FIELDS = Set.of("name", "cron", "every_ms", "after_ms", "time_zone", "start_at",
      "end_at", "max_runs", "misfire", "overlap", "task");
  private static final Set<String> NOT_IN_TEMPLATE = Set.of("trigger_time", "delay_ms", "biz_key", "depends_on");
  private static final int PREVIEW = 5;

  /**
   * A valid definition. {@code templateJson} holds every task field with its default filled in, the
   * payload written out exactly; {@code firstDue} is the first due time from now (null: none).
   */
  public record Definition(String name, String cron, Long everyMs, Long afterMs, String timeZone, Instant startAt,
                           Instant endAt, Long maxRuns, MisfirePolicy misfire, OverlapPolicy overlap,
                           String templateJson, Instant firstDue, List<Instant> nextFireTimes) {
  }

  private final TaskRequestParser tasks;

  public ScheduleRequestParser(TaskRequestParser tasks) {
    this.tasks = tasks;
  }

  /** @param nowMs the database clock's now: where the schedule starts when it gives no {@code start_at} */
  public Definition parse(JsonObject body, long nowMs) throws InvalidRequest {
    if (body == null) {
      throw new InvalidRequest(Problem.validation("body: a JSON object is required"));
    }
    for (String name : body.fieldNames()) {
      if (!FIELDS.contains(name)) {
        throw InvalidRequest.field(name, "unknown field");
      }
      if (body.getValue(name) == null) {
        throw InvalidRequest.field(name, "must not be null (leave the member out instead)");
      }
    }
    String name = optionalString(body, "name");
    if (name != null && (name.isEmpty() || name.codePointCount(0, name.length()) > 128)) {
      throw InvalidRequest.field("name", "must be 1-128 characters");
    }
    int kinds = (body.containsKey("cron") ? 1 : 0) + (body.containsKey("every_ms") ? 1 : 0)
        + (body.containsKey("after_ms") ? 1 : 0);
    if (kinds != 1) {
      throw InvalidRequest.field("cron", "exactly one of cron, every_ms or after_ms is required");
    }
    Instant now = Instant.ofEpochMilli(nowMs);
    Instant startAt = body.containsKey("start_at") ? time(body, "start_at") : now;
    Instant endAt = body.containsKey("end_at") ? time(body, "end_at") : null;
    if (endAt != null && endAt.isBefore(startAt)) {
      throw InvalidRequest.field("end_at", "must not be before start_at");
    }
    if (startAt.isBefore(now.minusMillis(TaskRequestParser.MAX_PAST_MS))
        || startAt.isAfter(now.plusMillis(TaskRequestParser.MAX_FUTURE_MS))) {
      throw InvalidRequest.field("start_at", "must lie between one year ago and 10 years from now");
    }
    Long maxRuns = body.containsKey("max_runs") ? whole(body, "max_runs", 1, Long.MAX_VALUE) : null;
    MisfirePolicy misfire = body.containsKey("misfire") ? enumValue(body, "misfire", MisfirePolicy::fromWire)
        : MisfirePolicy.FIRE_ONCE;
    OverlapPolicy overlap = body.containsKey("overlap") ? enumValue(body, "overlap", OverlapPolicy::fromWire)
        : OverlapPolicy.ALLOW;

    String cron = optionalString(body, "cron");
    Long everyMs = body.containsKey("every_ms") ? whole(body, "every_ms", 1_000, MAX_PERIOD_MS) : null;
    Long afterMs = body.containsKey("after_ms") ? whole(body, "after_ms", 1_000, MAX_PERIOD_MS) : null;
    String timeZone = optionalString(body, "time_zone");
    if (timeZone != null && cron == null) {
      throw InvalidRequest.field("time_zone", "applies to cron schedules only");
    }
    timeZone = timeZone == null ? "UTC" : timeZone;
    // Nothing is due before the schedule is stored: a start in the past begins at now.
    Instant from = (startAt.isAfter(now) ? startAt : now).minusMillis(1);
    if (afterMs != null) {
      // Fixed delay: the first occurrence at the start; each next one after_ms after the previous ended.
      Instant first = from.plusMillis(1);
      boolean fits = endAt == null || !first.isAfter(endAt);
      return new Definition(name, null, null, afterMs, timeZone, startAt, endAt, maxRuns, misfire, overlap,
          template(body, nowMs), fits ? first : null, fits ? List.of(first) : List.of());
    }
    Recurrence recurrence;
    if (cron != null) {
      ZoneId zone = zone(timeZone);
      try {
        recurrence = CronRule.parse(cron, zone).asRecurrence();
      } catch (IllegalArgumentException e) {
        throw InvalidRequest.field("cron", e.getMessage().startsWith("cron: ")
            ? e.getMessage().substring(6) : e.getMessage());
      }
    } else {
      recurrence = new FixedRate(startAt, everyMs);
    }
    int previewed = maxRuns == null ? PREVIEW : (int) Math.min(PREVIEW, maxRuns);
    List<Instant> next = OccurrencePlanner.preview(recurrence, from, endAt, previewed);
    return new Definition(name, cron, everyMs, null, timeZone, startAt, endAt, maxRuns, misfire, overlap,
        template(body, nowMs), next.isEmpty() ? null : next.get(0), next);
  }

  /** The occurrence template, checked as a submission would be and stored with every default filled in. */
  private String template(JsonObject body, long nowMs) throws InvalidRequest {
    Object value = body.getValue("task");
    if (!(value instanceof JsonObject task)) {
      throw InvalidRequest.field("task", "is required: the fields of POST /openapi/v1/tasks for each occurrence");
    }
    for (String field : task.fieldNames()) {
      if (field.equals("dedupe")) {
        throw InvalidRequest.field("task.dedupe", "does not apply to occurrences: a schedule creates one per "
            + "scheduled time, and occurrences of the same payload seconds apart are what it is for");
      }
      if (NOT_IN_TEMPLATE.contains(field)) {
        throw InvalidRequest.field("task." + field, "is set per occurrence by the schedule, not in its template");
      }
    }
    TaskRequestParser.Submission s;
    try {
      s = tasks.parse(task, nowMs);
    } catch (InvalidRequest e) {
      Problem p = e.problem();
      throw new InvalidRequest(new Problem(p.status(), p.code(), p.title(), "task." + p.detail()));
    }
    return "{\"task_type\":" + JsonText.encode(s.taskType())
        + ",\"callback_url\":" + (s.callbackUrl() == null ? "null" : JsonText.encode(s.callbackUrl()))
        + ",\"processor\":" + (s.processor() == null ? "null" : JsonText.encode(s.processor()))
        + ",\"payload\":" + (s.payloadJson() == null ? "null" : s.payloadJson())
        + ",\"max_retry\":" + s.maxRetry() + ",\"priority\":" + s.priority() + ",\"timeout_ms\":" + s.timeoutMs()
        + ",\"notify_url\":" + (s.notifyUrl() == null ? "null" : JsonText.encode(s.notifyUrl()))
        + ",\"shard_total\":" + s.shardTotal()
        + "}";
  }

  private static ZoneId zone(String id) throws InvalidRequest {
    if (!"UTC".equals(id) && !ZoneId.getAvailableZoneIds().contains(id)) {
      throw InvalidRequest.field("time_zone", "must be an IANA time zone such as Asia/Shanghai or UTC");
    }
    return ZoneId.of(id);
  }

  private static Instant time(JsonObject body, String field) throws InvalidRequest {
    Object v = body.getValue(field);
    if (!(v instanceof String s)) {
      throw InvalidRequest.field(field, "must be an RFC 3339 date-time string");
    }
    try {
      return Instant.ofEpochMilli(Rfc3339.parseMillis(s));
    } catch (DateTimeException | ArithmeticException e) {
      throw InvalidRequest.field(field, "must be RFC 3339 with an offset, e.g. 2026-12-01T20:00:00.000Z");
    }
  }

  private static String optionalString(JsonObject body, String field) throws InvalidRequest {
    Object v = body.getValue(field);
    if (v != null && !(v instanceof String)) {
      throw InvalidRequest.field(field, "must be a string");
    }
    return (String) v;
  }

  private static long whole(JsonObject body, String field, long min, long max) throws InvalidRequest {
    Long n = WholeNumbers.within(body.getValue(field), min, max);
    if (n == null) {
      throw InvalidRequest.field(field, "must be a whole number " + min + ".." + max);
    }
    return n;
  }

  private interface WireParser<T> {
    T parse(String value);
  }

  private static <T> T enumValue(JsonObject body, String field, WireParser<T> parser) throws InvalidRequest {
    Object v = body.getValue(field);
    try {
      return parser.parse(v instanceof String s ? s : null);
    } catch (IllegalArgumentException e) {
      throw InvalidRequest.field(field, e.getMessage().substring(field.length() + 2));
    }
  }
}
