package ax.api;

import ax.signing.RequestSigning;
import ax.store.TaskStore;
import ax.task.TaskRecord;
import ax.task.TaskStatus;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.util.List;
import java.util.Map;

/**
 * {@code listTasks}: the caller's tasks newest first, a page at a time, behind an opaque
 * {@link ListCursor}. One more row than the page is read so that the last page says so
 * ({@code next_cursor: null}) instead of sending the client to an empty one.
 */
final class TaskListHandler {
  static final int DEFAULT_LIMIT = 50;
  static final int MAX_LIMIT = 500;

  private final TaskStore tasks;

  TaskListHandler(TaskStore tasks) {
    this.tasks = tasks;
  }

  /** The query of one request, checked (the router checks it too; this keeps the handler honest alone). */
  private record Query(TaskStatus status, String taskType, Long scheduleId, String bizKey, int limit,
                       TaskStore.ListPosition after) {
    static Query of(RoutingContext ctx) throws InvalidRequest {
      // Decoded exactly as the signature covers them (a '+' is a plus; a repeated name was refused).
      Map<String, String> params = RequestSigning.parameters(ctx.request().query());
      String s = params.get("status");
      TaskStatus status;
      try {
        status = s == null ? null : TaskStatus.valueOf(s);
      } catch (IllegalArgumentException e) {
        throw InvalidRequest.field("status", "must be one of " + List.of(TaskStatus.values()));
      }
      int limit = TaskListHandler.limit(params);
      String c = params.get("cursor");
      TaskStore.ListPosition after = c == null ? null : ListCursor.decode(c).position();
      String schedule = params.get("schedule_id");
      Long scheduleId = null;
      if (schedule != null) {
        java.util.OptionalLong id = TaskIds.parse(schedule, "schedule_id");
        scheduleId = id.isPresent() ? id.getAsLong() : -1L; // well formed but no id: matches nothing
      }
      String bizKey = params.get("biz_key");
      if (bizKey != null && params.get("task_type") == null) {
        // biz_key is unique per (tenant, task_type): with the type it is one index probe, without it a walk
        throw InvalidRequest.field("biz_key", "is looked up with its task_type: send task_type too");
      }
      return new Query(status, params.get("task_type"), scheduleId, bizKey, limit, after);
    }
  }

  /** The page size of a list query (tasks or schedules): {@code limit}, 1..500, 50 when left out. */
  static int limit(Map<String, String> params) throws InvalidRequest {
    String l = params.get("limit");
    int limit;
    try {
      limit = l == null ? DEFAULT_LIMIT : Integer.parseInt(l);
    } catch (NumberFormatException e) {
      limit = 0;
    }
    if (limit < 1 || limit > MAX_LIMIT) {
      throw InvalidRequest.field("limit", "must be a whole number 1.." + MAX_LIMIT);
    }
    return limit;
  }

  void handle(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    Query q;
    try {
      q = Query.of(ctx);
    } catch (InvalidRequest e) {
      e.problem().send(ctx);
      return;
    }
    tasks.list(who.tenantId(), q.status(), q.taskType(), q.scheduleId(), q.bizKey(), q.after(), q.limit() + 1).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
        return;
      }
      List<TaskRecord> rows = ar.result();
      boolean more = rows.size() > q.limit();
      List<TaskRecord> page = more ? rows.subList(0, q.limit()) : rows;
      JsonArray items = new JsonArray();
      page.forEach(t -> items.add(TaskJson.full(t)));
      String next = more ? ListCursor.after(page.get(page.size() - 1)).encode() : null;
      HttpJson.send(ctx, 200, new JsonObject().put("items", items).put("next_cursor", next));
    });
  }
}
