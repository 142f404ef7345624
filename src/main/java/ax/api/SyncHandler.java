package ax.api;

import ax.json.JsonText;
import ax.protocol.TraceParent;
import ax.bus.Addresses;
import ax.store.TaskStore;
import ax.task.TaskRecord;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.util.List;

/**
 * {@code runTaskSync}: runs a processor task now and answers with its outcome. The task is stored like
 * any other; the leader is asked to wait for it <em>before</em> it enters the wheel (so a fast result
 * cannot slip past), and a task without an outcome within {@code timeout_ms} is failed, so a late
 * executor result is refused and the caller's answer stays the truth.
 */
final class SyncHandler {
  /** R7: the sync endpoint is for tasks estimated under 3 s. */
  private static final long SYNC_MAX_TIMEOUT_MS = 3_000;
  /** How much longer the API waits for the leader's answer than the leader waits for the executor. */
  private static final long SYNC_GRACE_MS = 500;

  private final Vertx vertx;
  private final TaskSubmitter submitter;
  private final TaskStore tasks;

  SyncHandler(Vertx vertx, TaskSubmitter submitter, TaskStore tasks) {
    this.vertx = vertx;
    this.submitter = submitter;
    this.tasks = tasks;
  }

  void handle(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    JsonObject body;
    try {
      body = HttpJson.bodyObject(ctx);
    } catch (InvalidRequest e) {
      e.problem().send(ctx);
      return;
    }
    if (body == null) {
      Problem.validation("body: a JSON object is required").send(ctx);
      return;
    }
    Object timeout = body.getValue("timeout_ms");
    if (timeout != null && !(timeout instanceof Number)) {
      Problem.validation("timeout_ms: must be a whole number 1.." + SYNC_MAX_TIMEOUT_MS).send(ctx);
      return;
    }
    if (timeout instanceof Number n && n.longValue() > SYNC_MAX_TIMEOUT_MS) {
      new Problem(400, "use_async_endpoint", "Too slow for the sync endpoint",
          "timeout_ms: synchronous tasks must finish within 3000 ms; submit it to POST /openapi/v1/tasks").send(ctx);
      return;
    }
    for (String field : List.of("trigger_time", "delay_ms", "depends_on", "callback_url")) {
      if (TaskRequestParser.isPresent(body, field)) {
        Problem.validation(field + ": not allowed on the sync endpoint (it runs a processor task now)").send(ctx);
        return;
      }
    }
    if (!body.containsKey("processor")) {
      Problem.validation("processor: required on the sync endpoint").send(ctx);
      return;
    }
    JsonObject task = body.copy();
    task.put("timeout_ms", timeout == null ? SYNC_MAX_TIMEOUT_MS : timeout);
    long timeoutMs = ((Number) task.getValue("timeout_ms")).longValue();
    TaskSubmitter.SubmitTrace trace = submitter.startTrace(TraceParent.orNull(ctx.request().getHeader("traceparent")));
    submitter.insert(who, task, submitter.now()).compose(ins -> submitter.recordTrace(trace, List.of(ins)).map(ins))
        .onComplete(ar -> trace.end(ar.succeeded() ? List.of(ar.result()) : List.of(),
            ar.failed() ? ar.cause().getMessage() : null))
        .compose(ins -> {
      TaskRecord r = ins.task();
      if (ins.duplicate() && (r.status().isTerminal() || r.processor() == null)) {
        // answered with a task this request did not create (same biz_key, or the fingerprint rule): one
        // that has finished, or an HTTP-target task no executor will answer for, is answered as it stands
        return Future.succeededFuture(answer(r));
      }
      JsonObject await = new JsonObject().put("task_id", Long.toString(r.taskId()))
          .put("trigger_ms", r.triggerTime().toInstant().toEpochMilli()).put("priority", r.priority())
          .put("timeout_ms", timeoutMs);
      return vertx.eventBus().<JsonObject>request(Addresses.SYNC_AWAIT, await,
              new DeliveryOptions().setSendTimeout(timeoutMs + SYNC_GRACE_MS))
          .map(reply -> answer(reply.body()))
          .recover(e -> (ins.duplicate()
              // a task this request did not create: the deadline is this request's, not that task's — say
              // where it stands and leave it alone (ApiFuzzIT once saw a pending HTTP task failed this way)
              ? tasks.find(who.tenantId(), r.taskId())
              : tasks.failUnfinished(who.tenantId(), r.taskId(),
                  "no outcome within timeout_ms (" + timeoutMs + " ms) on the sync endpoint"))
              .map(found -> answer(found.orElse(r))));
    }).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
      } else {
        HttpJson.send(ctx, 200, ar.result());
      }
    });
  }

  /** The contract's answer for a task as it stands. */
  private static JsonObject answer(TaskRecord t) {
    return answer(Long.toString(t.taskId()), t.status().name(), t.result(), t.error());
  }

  /** The contract's answer from the outcome waiter's reply ({@code ExecutorVerticle}'s sync answer). */
  private static JsonObject answer(JsonObject waiterReply) {
    return answer(waiterReply.getString("task_id"), waiterReply.getString("status"),
        waiterReply.getString("result_json"), waiterReply.getString("error"));
  }

  /** {task_id, status, result, error}; {@code resultJson} is the stored text, turned into JSON exactly. */
  private static JsonObject answer(String taskId, String status, String resultJson, String error) {
    return new JsonObject().put("task_id", taskId).put("status", status)
        .put("result", JsonText.parseOrText(resultJson)).put("error", error);
  }
}
