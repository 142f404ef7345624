package ax.api;

import ax.bus.Addresses;
import ax.bus.LeaderWatch;
import ax.bus.LocalCodec;
import ax.bus.SubmitMessage;
import ax.bus.TaskBatch;
import ax.clock.DbClock;
import ax.http.CallbackUrlPolicy;
import ax.http.HostResolver;
import ax.node.NodeSlotKeeper;
import ax.store.AttemptStore;
import ax.store.TaskStore;
import ax.task.NewTask;
import ax.task.TaskIdGenerator;
import ax.task.TaskRecord;
import ax.task.TaskStateMachine;
import ax.task.TaskStatus;
import ax.wheel.ScheduledTask;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import io.vertx.pgclient.PgException;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * The task operations of openapi.yaml, bound by operationId. Each handler runs after the HMAC handler
 * left an {@link ApiPrincipal} and after schema validation. Every read and write is scoped to the
 * caller's tenant. A submission is committed before it is answered, then handed to the wheel when it
 * is due inside the load window (otherwise the loader finds it in time).
 */
public final class TaskHandlers {
  public static final int MAX_BATCH = 1000;
  /** R7: the sync endpoint is for tasks estimated under 3 s. */
  private static final long SYNC_MAX_TIMEOUT_MS = 3_000;
  /** How much longer the API waits for the leader's answer than the leader waits for the executor. */
  private static final long SYNC_GRACE_MS = 500;

  private final Vertx vertx;
  private final TaskStore tasks;
  private final AttemptStore attempts;
  private final TaskRequestParser parser;
  private final CallbackUrlPolicy urlPolicy;
  private final HostResolver resolver;
  private final TaskIdGenerator ids;
  private final NodeSlotKeeper slot;
  private final DbClock clock;
  private final long loadWindowMs;
  private final LeaderWatch leader;
  private final TaskListHandler listHandler;

  public TaskHandlers(Vertx vertx, TaskStore tasks, AttemptStore attempts, CallbackUrlPolicy urlPolicy,
                      HostResolver resolver, TaskIdGenerator ids, NodeSlotKeeper slot, DbClock clock,
                      long loadWindowMs, LeaderWatch leader) {
    this.leader = leader;
    this.vertx = vertx;
    this.tasks = tasks;
    this.attempts = attempts;
    this.parser = new TaskRequestParser(urlPolicy);
    this.urlPolicy = urlPolicy;
    this.resolver = resolver;
    this.ids = ids;
    this.slot = slot;
    this.clock = clock;
    this.loadWindowMs = loadWindowMs;
    this.listHandler = new TaskListHandler(tasks);
  }

  public void create(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    submit(who, bodyObject(ctx), clock.nowMillis()).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
        return;
      }
      TaskStore.Inserted ins = ar.result();
      JsonObject out = TaskJson.created(ins.task());
      if (ins.duplicate()) {
        out.put("duplicate", true);
      }
      json(ctx, ins.duplicate() ? 200 : 201, out);
    });
  }

  public void createBatch(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    JsonObject body = bodyObject(ctx);
    JsonArray items = body == null ? null : body.getJsonArray("tasks");
    if (items == null || items.isEmpty() || items.size() > MAX_BATCH) {
      Problem.validation("tasks: 1.." + MAX_BATCH + " task objects are required").send(ctx);
      return;
    }
    long receivedAt = clock.nowMillis();
    List<Future<Prepared>> prepared = new ArrayList<>(items.size());
    for (int i = 0; i < items.size(); i++) {
      Object item = items.getValue(i);
      prepared.add(item instanceof JsonObject o ? prepare(who, o, receivedAt)
          : Future.failedFuture(InvalidRequest.field("tasks[" + i + "]", "must be an object")));
    }
    Future.join(prepared).onComplete(all -> insertBatch(ctx, prepared));
  }

  /**
   * Inserts the valid items of a batch: the unsharded ones in one statement (one round trip for up to
   * 1000 tasks), sharded ones one by one. If the shared statement fails on a task invariant, every item
   * is inserted alone so only the offending one is refused.
   */
  private void insertBatch(RoutingContext ctx, List<Future<Prepared>> prepared) {
    List<NewTask> plain = new ArrayList<>();
    for (Future<Prepared> p : prepared) {
      if (p.succeeded() && p.result().shardIds().length == 0) {
        plain.add(p.result().task());
      }
    }
    Future<java.util.Map<Long, TaskStore.Inserted>> together = plain.isEmpty()
        ? Future.succeededFuture(java.util.Map.of())
        : tasks.insertMany(plain).map(list -> {
          java.util.Map<Long, TaskStore.Inserted> byId = new java.util.HashMap<>();
          for (int i = 0; i < list.size(); i++) {
            byId.put(plain.get(i).taskId(), list.get(i));
          }
          return byId;
        }).recover(e -> e instanceof PgException pg && pg.getSqlState() != null && pg.getSqlState().startsWith("23")
            ? Future.succeededFuture(java.util.Map.of()) : Future.failedFuture(e));
    together.onComplete(ar -> {
      List<Future<JsonObject>> results = new ArrayList<>(prepared.size());
      List<ScheduledTask> due = new ArrayList<>();
      for (int i = 0; i < prepared.size(); i++) {
        int index = i;
        Future<Prepared> p = prepared.get(i);
        Future<TaskStore.Inserted> f;
        if (p.failed()) {
          f = Future.failedFuture(p.cause());
        } else if (ar.failed()) {
          f = Future.failedFuture(ar.cause());
        } else if (ar.result().containsKey(p.result().task().taskId())) {
          f = Future.succeededFuture(ar.result().get(p.result().task().taskId()));
        } else {
          f = tasks.insert(p.result().task(), p.result().shardIds()).recover(TaskHandlers::asInvariantViolation);
        }
        results.add(f.onSuccess(ins -> collectDue(ins, due)).map(ins -> itemResult(index, ins))
            .recover(e -> Future.succeededFuture(itemError(index, e))));
      }
      Future.join(results).onComplete(done -> {
        toWheel(due);
        JsonArray out = new JsonArray();
        results.forEach(f -> out.add(f.result()));
        json(ctx, 200, new JsonObject().put("results", out));
      });
    });
  }

  private static JsonObject itemResult(int index, TaskStore.Inserted ins) {
    JsonObject r = TaskJson.created(ins.task()).put("index", index).put("status_code", ins.duplicate() ? 200 : 201);
    return ins.duplicate() ? r.put("duplicate", true) : r;
  }

  private static JsonObject itemError(int index, Throwable e) {
    Problem problem = e instanceof InvalidRequest ir ? ir.problem()
        : ApiErrors.isDatabaseUnavailable(e) ? Problem.unavailable("the task store is unavailable") : Problem.internal();
    return new JsonObject().put("index", index).put("status_code", problem.status()).put("error", problem.toJson());
  }

  /** Validates, checks the callback host's addresses, inserts (committed), and notifies the wheel. */
  private Future<TaskStore.Inserted> submit(ApiPrincipal who, JsonObject body, long receivedAt) {
    return insert(who, body, receivedAt).onSuccess(ins -> {
      List<ScheduledTask> due = new ArrayList<>(1 + ins.shardIds().length);
      collectDue(ins, due);
      toWheel(due);
    });
  }

  /** Adds a new task (and its shards) to {@code due} when it falls inside the load window. */
  private void collectDue(TaskStore.Inserted ins, List<ScheduledTask> due) {
    TaskRecord r = ins.task();
    long trigger = r.triggerTime().toInstant().toEpochMilli();
    if (!ins.duplicate() && trigger <= clock.nowMillis() + loadWindowMs) {
      due.add(new ScheduledTask(r.taskId(), trigger, r.priority()));
      for (long shard : ins.shardIds()) {
        due.add(new ScheduledTask(shard, trigger, r.priority()));
      }
    }
  }

  /**
   * The leader's wheel takes it directly when this node leads; otherwise it crosses the cluster. If
   * that message is lost (no leader right now), the next leader's loader finds the task in PostgreSQL.
   */
  private void toWheel(List<ScheduledTask> tasks) {
    if (tasks.isEmpty()) {
      return;
    }
    if (leader.isLeader()) {
      vertx.eventBus().send(Addresses.WHEEL_SCHEDULE, new TaskBatch(tasks), LocalCodec.localOnly());
    } else {
      vertx.eventBus().send(Addresses.WHEEL_SUBMIT, SubmitMessage.encode(tasks));
    }
  }

  private Future<TaskStore.Inserted> insert(ApiPrincipal who, JsonObject body, long receivedAt) {
    return prepare(who, body, receivedAt).compose(p -> tasks.insert(p.task(), p.shardIds()))
        .recover(TaskHandlers::asInvariantViolation);
  }

  private static <T> Future<T> asInvariantViolation(Throwable e) {
    return Future.failedFuture(e instanceof PgException pg && pg.getSqlState() != null
        && pg.getSqlState().startsWith("23") ? InvalidRequest.field("body", "violates a task invariant: "
        + pg.getErrorMessage()) : e);
  }

  /** A validated task with its ids, ready to insert. */
  private record Prepared(NewTask task, long[] shardIds) {
  }

  /** Validates, checks the callback host's addresses, and assigns ids; inserts nothing. */
  private Future<Prepared> prepare(ApiPrincipal who, JsonObject body, long receivedAt) {
    TaskRequestParser.Submission s;
    try {
      s = parser.parse(body, receivedAt);
    } catch (InvalidRequest e) {
      return Future.failedFuture(e);
    }
    if (!slot.canIssueIds()) {
      return Future.failedFuture(new InvalidRequest(Problem.unavailable(
          "this node cannot issue task ids right now (node slot lease not renewed); retry later")));
    }
    return checkCallbackHost(s.callbackUrl()).compose(v -> {
      long id = ids.nextId();
      // A due processor task starts DELAYED all the same: the claim turns it READY and hands it to the
      // executor dispatch at once (a READY one would wait for the dispatch's periodic top-up).
      TaskStatus status = s.processor() != null ? TaskStatus.DELAYED
          : TaskStateMachine.admitted(s.triggerTimeMs(), clock.nowMillis());
      NewTask t = s.toNewTask(id, who.tenantId(), who.accessKey(), status);
      long[] shardIds = new long[s.shardTotal() > 1 ? s.shardTotal() : 0];
      for (int i = 0; i < shardIds.length; i++) {
        shardIds[i] = ids.nextId();
      }
      return Future.succeededFuture(new Prepared(t, shardIds));
    });
  }

  private Future<Void> checkCallbackHost(String callbackUrl) {
    if (callbackUrl == null) {
      return Future.succeededFuture();
    }
    String host = URI.create(callbackUrl).getHost();
    return resolver.resolve(host)
        .recover(e -> Future.failedFuture(new InvalidRequest(new Problem(400, "callback_url_not_allowed",
            "Callback URL refused", "callback_url: host " + host + " does not resolve"))))
        .compose(addresses -> {
          CallbackUrlPolicy.Verdict v = urlPolicy.checkResolved(host, addresses);
          return v.allowed() ? Future.succeededFuture()
              : Future.failedFuture(new InvalidRequest(new Problem(400, v.code(), "Callback URL refused",
                  "callback_url: " + v.detail())));
        });
  }

  public void get(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    long id = taskId(ctx);
    if (id < 0) {
      Problem.notFound("no such task").send(ctx);
      return;
    }
    tasks.find(who.tenantId(), id).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
      } else if (ar.result().isEmpty()) {
        Problem.notFound("no such task").send(ctx);
      } else {
        json(ctx, 200, TaskJson.full(ar.result().get()));
      }
    });
  }

  public void cancel(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    long id = taskId(ctx);
    if (id < 0) {
      Problem.notFound("no such task").send(ctx);
      return;
    }
    tasks.cancel(who.tenantId(), id).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
        return;
      }
      TaskStore.CancelOutcome o = ar.result();
      if (o.cancelled()) {
        vertx.eventBus().send(Addresses.WHEEL_CANCEL, id, LocalCodec.localOnly());
        json(ctx, 200, new JsonObject().put("task_id", Long.toString(id)).put("status", "CANCELLED"));
      } else if (o.currentStatus().isEmpty()) {
        Problem.notFound("no such task").send(ctx);
      } else {
        TaskStatus current = o.currentStatus().get();
        Problem p = new Problem(409, "not_cancellable", "Not cancellable",
            "the task is " + current + "; only tasks not yet dispatched can be cancelled");
        p.send(ctx, p.toJson().put("current_status", current.name()));
      }
    });
  }

  public void list(RoutingContext ctx) {
    listHandler.handle(ctx);
  }

  public void listAttempts(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    long id = taskId(ctx);
    if (id < 0) {
      Problem.notFound("no such task").send(ctx);
      return;
    }
    attempts.list(who.tenantId(), id).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
      } else if (ar.result().isEmpty()) {
        Problem.notFound("no such task").send(ctx);
      } else {
        JsonArray items = new JsonArray();
        ar.result().get().forEach(a -> items.add(TaskJson.attempt(a)));
        json(ctx, 200, new JsonObject().put("items", items));
      }
    });
  }

  /**
   * Runs a processor task now and answers with its outcome. The task is stored like any other; the
   * leader is asked to wait for it <em>before</em> it enters the wheel (so a fast result cannot slip
   * past), and a task without an outcome within {@code timeout_ms} is failed, so a late executor
   * result is refused and the caller's answer stays the truth.
   */
  public void runSync(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    JsonObject body = bodyObject(ctx);
    if (body == null) {
      Problem.validation("body: a JSON object is required").send(ctx);
      return;
    }
    Object timeout = body.getValue("timeout_ms");
    if (timeout instanceof Number n && n.longValue() > SYNC_MAX_TIMEOUT_MS) {
      new Problem(400, "use_async_endpoint", "Too slow for the sync endpoint",
          "timeout_ms: synchronous tasks must finish within 3000 ms; submit it to POST /openapi/v1/tasks").send(ctx);
      return;
    }
    for (String field : List.of("trigger_time", "delay_ms", "depends_on", "callback_url")) {
      if (body.containsKey(field)) {
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
    insert(who, task, clock.nowMillis()).compose(ins -> {
      TaskRecord r = ins.task();
      JsonObject await = new JsonObject().put("task_id", Long.toString(r.taskId()))
          .put("trigger_ms", r.triggerTime().toInstant().toEpochMilli()).put("priority", r.priority())
          .put("timeout_ms", timeoutMs);
      return vertx.eventBus().<JsonObject>request(Addresses.SYNC_AWAIT, await,
              new DeliveryOptions().setSendTimeout(timeoutMs + SYNC_GRACE_MS))
          .map(reply -> reply.body())
          .recover(e -> tasks.failUnfinished(who.tenantId(), r.taskId(),
              "no outcome within timeout_ms (" + timeoutMs + " ms) on the sync endpoint"));
    }).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
      } else {
        json(ctx, 200, ar.result());
      }
    });
  }

  private static long taskId(RoutingContext ctx) {
    String raw = ctx.pathParam("task_id");
    try {
      long id = Long.parseLong(raw);
      return id > 0 ? id : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static JsonObject bodyObject(RoutingContext ctx) {
    try {
      return ctx.body() == null ? null : ctx.body().asJsonObject();
    } catch (DecodeException | ClassCastException e) {
      return null;
    }
  }

  private static void json(RoutingContext ctx, int status, JsonObject body) {
    ctx.response().setStatusCode(status).putHeader("content-type", "application/json").end(body.encode());
  }
}
