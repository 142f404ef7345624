package ax.api;

import ax.bus.Addresses;
import ax.signing.RequestSigning;
import ax.store.RecurringScheduleStore;
import ax.store.RecurringScheduleStore.ScheduleRow;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * The schedule operations of openapi.yaml (API.md "Recurring schedules"). Schedules belong to the
 * caller's tenant like tasks: another tenant's schedule is simply not found. Occurrences are created by
 * the leader ({@code OccurrenceVerticle}); {@code trigger} creates one here and hands it to the wheel.
 */
final class ScheduleHandlers {
  private static final Set<String> STATUSES = Set.of("ACTIVE", "PAUSED", "ENDED");

  private final Vertx vertx;
  private final TaskSubmitter submitter;
  private final RecurringScheduleStore store;
  private final ScheduleRequestParser parser;

  ScheduleHandlers(Vertx vertx, TaskSubmitter submitter, RecurringScheduleStore store, ScheduleRequestParser parser) {
    this.vertx = vertx;
    this.submitter = submitter;
    this.store = store;
    this.parser = parser;
  }

  void create(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    long id;
    try {
      id = submitter.newId();
    } catch (InvalidRequest e) {
      e.problem().send(ctx);
      return;
    }
    Optional<ScheduleRow> row = definition(ctx, who, id);
    if (row.isPresent()) {
      write(ctx, row.get(), () -> store.create(row.get()).map(Optional::of), 201);
    }
  }

  /** PUT: a new definition for a schedule that has not ended; status and counters stay. */
  void replace(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    withId(ctx, id -> definition(ctx, who, id).ifPresent(row -> write(ctx, row, () -> store.replace(row), 200)));
  }

  /** The request's definition as a row for this caller, or empty after answering the refusal. */
  private Optional<ScheduleRow> definition(RoutingContext ctx, ApiPrincipal who, long scheduleId) {
    ScheduleRequestParser.Definition d;
    try {
      d = parser.parse(HttpJson.bodyObject(ctx), submitter.now());
    } catch (InvalidRequest e) {
      e.problem().send(ctx);
      return Optional.empty();
    }
    if (d.firstDue() == null) {
      Problem.validation("end_at: the schedule has no due time between now and end_at").send(ctx);
      return Optional.empty();
    }
    return Optional.of(new ScheduleRow(scheduleId, who.tenantId(), who.accessKey(), d.name(), d.cron(),
        d.everyMs(), d.afterMs(), d.timeZone(), d.startAt(), d.endAt(), d.maxRuns(), d.misfire().wire(),
        d.overlap().wire(), d.templateJson(), "ACTIVE", d.firstDue(), 0, 0, 0, null, null, null));
  }

  /**
   * Checks the template's callback host (resolved: no private address), then writes; answers 201/200 with
   * the schedule, 409 for a name in use, or 404/409 when the schedule to replace is missing or ended.
   */
  private void write(RoutingContext ctx, ScheduleRow row, Supplier<Future<Optional<ScheduleRow>>> store,
                     int status) {
    JsonObject template = new JsonObject(row.templateJson());
    submitter.checkCallbackHost(template.getString("callback_url"))
        .compose(v -> submitter.checkNotifyHost(template.getString("notify_url")))
        .compose(v -> store.get()).onComplete(ar -> {
      if (ar.failed() && ar.cause() instanceof InvalidRequest refused) {
        refused.problem().send(ctx);
      } else if (ar.failed() && TaskSubmitter.isInvariantViolation(ar.cause())) {
        // The one unique rule a schedule can break: (tenant, name) among schedules that have not ended.
        new Problem(409, "schedule_name_taken", "Name taken",
            "name: a schedule of yours that has not ended has this name").send(ctx);
      } else if (ar.failed()) {
        ctx.fail(ar.cause());
      } else if (ar.result().isEmpty()) {
        conflictOrNotFound(ctx, ctx.get(ApiPrincipal.CONTEXT_KEY), row.scheduleId(), "the schedule has ended");
      } else {
        schedulesChanged();
        HttpJson.send(ctx, status, status == 201 ? ScheduleJson.created(ar.result().get())
            : ScheduleJson.full(ar.result().get()));
      }
    });
  }

  void get(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    withId(ctx, id -> answer(ctx, store.find(who.tenantId(), id), "no such schedule"));
  }

  void pause(RoutingContext ctx) {
    change(ctx, store::pause, "no such schedule, or it is not ACTIVE");
  }

  void resume(RoutingContext ctx) {
    change(ctx, (tenant, id) -> store.resume(tenant, id).onSuccess(r -> schedulesChanged()),
        "no such schedule, or it is not PAUSED");
  }

  /** The leader's materialiser looks at once: a new or resumed schedule may be due now. */
  private void schedulesChanged() {
    vertx.eventBus().publish(Addresses.SCHEDULES_CHANGED, null);
  }

  void delete(RoutingContext ctx) {
    change(ctx, store::end, "no such schedule, or it has ended");
  }

  void trigger(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    withId(ctx, id -> {
      long taskId;
      try {
        taskId = submitter.newId();
      } catch (InvalidRequest e) {
        e.problem().send(ctx);
        return;
      }
      trigger(ctx, who, id, taskId);
    });
  }

  /** Ids for a triggered occurrence's shards; the slot lease was checked for its own id a moment ago. */
  private long shardId() {
    try {
      return submitter.newId();
    } catch (InvalidRequest e) {
      throw new IllegalStateException(e.problem().detail());
    }
  }

  private void trigger(RoutingContext ctx, ApiPrincipal who, long id, long taskId) {
    store.trigger(who.tenantId(), id, taskId, this::shardId).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
      } else if (ar.result().isEmpty()) {
        conflictOrNotFound(ctx, who, id, "the schedule has ended");
      } else {
        RecurringScheduleStore.Triggered t = ar.result().get();
        if (!t.held()) {
          submitter.toWheel(t.tasks());
        }
        HttpJson.send(ctx, 201, new JsonObject().put("task_id", Long.toString(t.taskId())));
      }
    });
  }

  void list(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    String status;
    int limit;
    ListCursor after;
    try {
      Map<String, String> params = RequestSigning.parameters(ctx.request().query());
      status = params.get("status");
      if (status != null && !STATUSES.contains(status)) {
        throw InvalidRequest.field("status", "must be one of ACTIVE, PAUSED, ENDED");
      }
      limit = TaskListHandler.limit(params);
      after = params.containsKey("cursor") ? ListCursor.decode(params.get("cursor")) : null;
    } catch (InvalidRequest e) {
      e.problem().send(ctx);
      return;
    } catch (IllegalArgumentException e) { // a repeated or undecodable query parameter
      Problem.validation("query: " + e.getMessage()).send(ctx);
      return;
    }
    OffsetDateTime afterCreated = after == null ? null : after.position().createdAt();
    Long afterId = after == null ? null : after.position().taskId();
    int pageSize = limit;
    // One more than asked: whether a next page exists, without a second query.
    store.list(who.tenantId(), status, afterCreated, afterId, limit + 1).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
        return;
      }
      List<ScheduleRow> rows = ar.result();
      boolean more = rows.size() > pageSize;
      List<ScheduleRow> page = more ? rows.subList(0, pageSize) : rows;
      JsonArray items = new JsonArray();
      page.forEach(r -> items.add(ScheduleJson.full(r)));
      ScheduleRow last = page.isEmpty() ? null : page.get(page.size() - 1);
      String next = !more ? null
          : ListCursor.at(OffsetDateTime.ofInstant(last.createdAt(), ZoneOffset.UTC), last.scheduleId()).encode();
      HttpJson.send(ctx, 200, new JsonObject().put("items", items).put("next_cursor", next));
    });
  }

  private void change(RoutingContext ctx, BiFunction<String, Long, Future<Optional<ScheduleRow>>> op,
                      String conflict) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    withId(ctx, id -> op.apply(who.tenantId(), id).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
      } else if (ar.result().isEmpty()) {
        conflictOrNotFound(ctx, who, id, conflict);
      } else {
        HttpJson.send(ctx, 200, ScheduleJson.full(ar.result().get()));
      }
    }));
  }

  /** The change did not apply: 404 when the caller has no such schedule, else 409 with its status. */
  private void conflictOrNotFound(RoutingContext ctx, ApiPrincipal who, long id, String why) {
    store.find(who.tenantId(), id).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
      } else if (ar.result().isEmpty()) {
        Problem.notFound("no such schedule").send(ctx);
      } else {
        new Problem(409, "schedule_state_conflict", "Not in that state",
            why + " (status " + ar.result().get().status() + ")").send(ctx);
      }
    });
  }

  private static void answer(RoutingContext ctx, Future<Optional<ScheduleRow>> found, String missing) {
    found.onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
      } else if (ar.result().isEmpty()) {
        Problem.notFound(missing).send(ctx);
      } else {
        HttpJson.send(ctx, 200, ScheduleJson.full(ar.result().get()));
      }
    });
  }

  private static void withId(RoutingContext ctx, LongConsumer then) {
    TaskIds.withPathId(ctx, "schedule_id", "no such schedule", then);
  }
}
