package ax.api;

import ax.bus.Addresses;
import ax.bus.LocalCodec;
import ax.protocol.TraceParent;
import ax.store.AttemptStore;
import ax.store.TaskStore;
import ax.task.TaskStatus;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.util.function.LongConsumer;

/**
 * The single-task operations of openapi.yaml: create one, read one, cancel one, list its attempts. Each
 * runs after the HMAC handler left an {@link ApiPrincipal}; every read and write is scoped to the
 * caller's tenant, so another tenant's task is simply not found.
 */
final class TaskHandlers {
  private final Vertx vertx;
  private final TaskSubmitter submitter;
  private final TaskStore tasks;
  private final AttemptStore attempts;

  TaskHandlers(Vertx vertx, TaskSubmitter submitter, TaskStore tasks, AttemptStore attempts) {
    this.vertx = vertx;
    this.submitter = submitter;
    this.tasks = tasks;
    this.attempts = attempts;
  }

  void create(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    JsonObject body;
    try {
      body = HttpJson.bodyObject(ctx);
    } catch (InvalidRequest e) {
      e.problem().send(ctx);
      return;
    }
    // a valid W3C traceparent from the caller; an invalid one is ignored
    String callerTraceparent = TraceParent.orNull(ctx.request().getHeader("traceparent"));
    submitter.submit(who, body, submitter.now(), callerTraceparent).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
        return;
      }
      TaskStore.Inserted ins = ar.result();
      JsonObject out = TaskJson.created(ins.task());
      if (ins.duplicate()) {
        out.put("duplicate", true).put("duplicate_reason", ins.duplicateReason().wire());
      }
      HttpJson.send(ctx, ins.duplicate() ? 200 : 201, out);
    });
  }

  void get(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    withTaskId(ctx, id -> tasks.find(who.tenantId(), id).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
      } else if (ar.result().isEmpty()) {
        notFound(ctx);
      } else {
        HttpJson.send(ctx, 200, TaskJson.full(ar.result().get()));
      }
    }));
  }

  void cancel(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    withTaskId(ctx, taskId -> tasks.cancel(who.tenantId(), taskId).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
        return;
      }
      TaskStore.CancelOutcome o = ar.result();
      if (o.cancelled()) {
        vertx.eventBus().send(Addresses.WHEEL_CANCEL, taskId, LocalCodec.localOnly());
        HttpJson.send(ctx, 200, new JsonObject().put("task_id", Long.toString(taskId)).put("status", "CANCELLED"));
      } else if (o.currentStatus().isEmpty()) {
        notFound(ctx);
      } else {
        TaskStatus current = o.currentStatus().get();
        Problem p = new Problem(409, "not_cancellable", "Not cancellable",
            "the task is " + current + "; only tasks not yet dispatched can be cancelled");
        p.send(ctx, p.toJson().put("current_status", current.name()));
      }
    }));
  }

  void listAttempts(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    withTaskId(ctx, id -> attempts.list(who.tenantId(), id).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
      } else if (ar.result().isEmpty()) {
        notFound(ctx);
      } else {
        JsonArray items = new JsonArray();
        ar.result().get().forEach(a -> items.add(TaskJson.attempt(a)));
        HttpJson.send(ctx, 200, new JsonObject().put("items", items));
      }
    }));
  }

  /**
   * Runs {@code then} with the path's task id; answers 400 itself when the id is malformed and 404 when
   * it is well formed but cannot name a task.
   */
  private static void withTaskId(RoutingContext ctx, LongConsumer then) {
    TaskIds.withPathId(ctx, "task_id", "no such task", then);
  }

  private static void notFound(RoutingContext ctx) {
    Problem.notFound("no such task").send(ctx);
  }
}
