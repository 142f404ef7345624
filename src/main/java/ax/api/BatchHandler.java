package ax.api;

import ax.store.TaskStore;
import ax.task.NewTask;
import ax.protocol.TraceParent;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code createTaskBatch}: up to 1000 tasks in one request, each answered on its own. The body's shape
 * ({@code {"tasks": [1..1000 elements]}} and nothing else) is checked first and refuses the whole
 * request; every element is then what {@code createTask} would make of it, so one bad element costs
 * only its own result (openapi.yaml, {@code TaskBatchItemResult}).
 */
final class BatchHandler {
  static final int MAX_BATCH = 1000;
  private static final Logger LOG = Logger.getLogger(BatchHandler.class.getName());

  private final TaskSubmitter submitter;
  private final TaskStore tasks;

  BatchHandler(TaskSubmitter submitter, TaskStore tasks) {
    this.submitter = submitter;
    this.tasks = tasks;
  }

  void handle(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    JsonArray items;
    Map<Integer, InvalidRequest> flawed;
    try {
      HttpJson.Checked body = HttpJson.decodeWithFlaws(ctx.body() == null ? null : ctx.body().buffer());
      items = items(body.body());
      flawed = flawedItems(body.flaws());
    } catch (InvalidRequest e) {
      e.problem().send(ctx);
      return;
    }
    long receivedAt = submitter.now();
    TaskSubmitter.SubmitTrace trace = submitter.startTrace(TraceParent.orNull(ctx.request().getHeader("traceparent")));
    List<Future<TaskSubmitter.Prepared>> prepared = new ArrayList<>(items.size());
    for (int i = 0; i < items.size(); i++) {
      Object item = items.getValue(i);
      prepared.add(flawed.containsKey(i) ? Future.failedFuture(flawed.get(i))
          : item instanceof JsonObject o ? submitter.prepare(who, o, receivedAt)
          : Future.failedFuture(InvalidRequest.field("tasks/" + i, "must be a task object")));
    }
    Future.join(prepared).onComplete(all -> {
      if (prepared.stream().anyMatch(p -> p.succeeded() && !p.result().dependsOn().isEmpty())) {
        insertGraph(ctx, prepared, trace);
      } else {
        insert(ctx, prepared, trace);
      }
    });
  }

  /**
   * A batch whose items name parents: every item in order, in one transaction, so {@code "#<index>"}
   * finds the task its earlier item stored (or the existing one it duplicated). References point
   * backwards only, so a cycle cannot be written. An item that is invalid, or whose parent is unknown or
   * was not created, is answered on its own; any other failure rolls the whole batch back and every
   * item answers it (nothing was stored).
   */
  private void insertGraph(RoutingContext ctx, List<Future<TaskSubmitter.Prepared>> prepared,
                           TaskSubmitter.SubmitTrace trace) {
    List<UUID> fingerprints = new ArrayList<>();
    prepared.forEach(p -> {
      if (p.succeeded() && p.result().task().fingerprint() != null) {
        fingerprints.add(p.result().task().fingerprint());
      }
    });
    tasks.inTransaction(tx -> {
      List<Future<TaskStore.Inserted>> done = new ArrayList<>(prepared.size());
      return tx.lockFingerprints(fingerprints).compose(v -> insertFrom(tx, prepared, done)).map(v -> done);
    }).onComplete(ar -> {
      if (ar.succeeded()) {
        answer(ctx, ar.result(), trace);
      } else {
        List<Future<TaskStore.Inserted>> failed = new ArrayList<>(prepared.size());
        prepared.forEach(p -> failed.add(Future.failedFuture(p.failed() ? p.cause() : ar.cause())));
        answer(ctx, failed, trace);
      }
    });
  }

  /** Stores item {@code done.size()} and the ones after it, one at a time. */
  private Future<Void> insertFrom(TaskStore.Writes tx, List<Future<TaskSubmitter.Prepared>> prepared,
                                  List<Future<TaskStore.Inserted>> done) {
    int index = done.size();
    if (index == prepared.size()) {
      return Future.succeededFuture();
    }
    Future<TaskStore.Inserted> item = resolveParents(index, prepared.get(index), done)
        .compose(p -> submitter.insert(tx, p));
    return item.transform(ar -> {
      if (ar.failed() && !(ar.cause() instanceof InvalidRequest)) {
        return Future.failedFuture(ar.cause()); // the transaction is aborted: nothing after it can be stored
      }
      done.add(item);
      return insertFrom(tx, prepared, done);
    });
  }

  /** The item with its {@code "#<index>"} references replaced by the ids of the earlier items' tasks. */
  static Future<TaskSubmitter.Prepared> resolveParents(int index, Future<TaskSubmitter.Prepared> item,
                                                       List<Future<TaskStore.Inserted>> earlier) {
    if (item.failed()) {
      return item;
    }
    TaskRequestParser.DependsOn refs = item.result().dependsOn();
    java.util.Set<Long> parents = new java.util.LinkedHashSet<>();
    for (long id : refs.taskIds()) {
      parents.add(id);
    }
    for (int ref : refs.batchItems()) {
      if (ref >= index) {
        return Future.failedFuture(InvalidRequest.field("depends_on", "\"#" + ref
            + "\" must name an earlier item of this batch (this is item " + index + ")"));
      }
      Future<TaskStore.Inserted> parent = earlier.get(ref);
      if (parent.failed()) {
        return Future.failedFuture(InvalidRequest.field("depends_on", "\"#" + ref + "\" was not created"));
      }
      parents.add(parent.result().task().taskId());
    }
    return Future.succeededFuture(item.result().withParents(parents.stream().mapToLong(Long::longValue).toArray()));
  }

  /**
   * The first flaw of each element that has one; a flaw outside every element refuses the request.
   *
   * @throws InvalidRequest for a flaw outside the elements (e.g. {@code "tasks"} twice)
   */
  static Map<Integer, InvalidRequest> flawedItems(List<JsonLimits.Flaw> flaws) throws InvalidRequest {
    Map<Integer, InvalidRequest> byItem = new HashMap<>();
    for (JsonLimits.Flaw f : flaws) {
      int index = f.batchIndex();
      if (index < 0) {
        throw f.refusal();
      }
      byItem.putIfAbsent(index, f.refusal());
    }
    return byItem;
  }

  /**
   * The elements of a body that has the batch's shape.
   *
   * @throws InvalidRequest {@code validation_failed} naming what is wrong with the shape
   */
  static JsonArray items(JsonObject body) throws InvalidRequest {
    if (body == null) {
      throw InvalidRequest.field("body", "must be a JSON object {\"tasks\": [...]}");
    }
    for (String name : body.fieldNames()) {
      if (!name.equals("tasks")) {
        throw InvalidRequest.field(name, "unknown member; the body is {\"tasks\": [...]}");
      }
    }
    if (!(body.getValue("tasks") instanceof JsonArray items) || items.isEmpty() || items.size() > MAX_BATCH) {
      throw InvalidRequest.field("tasks", "must be an array of 1.." + MAX_BATCH + " tasks");
    }
    return items;
  }

  /**
   * Inserts the valid elements: the unsharded ones in one statement (one round trip for up to 1000
   * tasks), the rest one by one, in request order, after it. If the shared statement fails on a task
   * invariant, every element is inserted alone so only the offending one is refused.
   *
   * <p>Of two equal elements (same fingerprint, due less than 5 s apart) the earlier one is created and
   * the later one is its duplicate, as between two requests. The shared statement keeps that order among
   * its own rows; a sharded element goes later, so an unsharded element equal to an earlier sharded one
   * leaves the shared statement and follows it (ApiFuzzIT found the later one created and the earlier
   * answered as its duplicate).
   */
  private void insert(RoutingContext ctx, List<Future<TaskSubmitter.Prepared>> prepared,
                      TaskSubmitter.SubmitTrace trace) {
    List<NewTask> plain = new ArrayList<>();
    Set<UUID> shardedBefore = new HashSet<>();
    for (Future<TaskSubmitter.Prepared> p : prepared) {
      if (p.failed()) {
        continue;
      }
      NewTask task = p.result().task();
      if (p.result().shardIds().length > 0) {
        if (task.fingerprint() != null) {
          shardedBefore.add(task.fingerprint());
        }
      } else if (task.fingerprint() == null || !shardedBefore.contains(task.fingerprint())) {
        plain.add(task);
      }
    }
    Future<Map<Long, TaskStore.Inserted>> together = plain.isEmpty()
        ? Future.succeededFuture(Map.of())
        : tasks.insertMany(plain).map(list -> {
          Map<Long, TaskStore.Inserted> byId = new HashMap<>();
          for (int i = 0; i < list.size(); i++) {
            byId.put(plain.get(i).taskId(), list.get(i));
          }
          return byId;
        }).recover(e -> TaskSubmitter.isInvariantViolation(e)
            ? Future.succeededFuture(Map.of()) : Future.failedFuture(e));
    together.onComplete(ar -> {
      List<Future<TaskStore.Inserted>> inserted = new ArrayList<>(prepared.size());
      // One at a time: each alone-inserted element starts when the one before it has ended.
      Future<?> previous = Future.succeededFuture();
      for (Future<TaskSubmitter.Prepared> p : prepared) {
        if (p.failed()) {
          inserted.add(Future.failedFuture(p.cause()));
        } else if (ar.failed()) {
          inserted.add(Future.failedFuture(ar.cause()));
        } else if (ar.result().containsKey(p.result().task().taskId())) {
          inserted.add(Future.succeededFuture(ar.result().get(p.result().task().taskId())));
        } else {
          Future<TaskStore.Inserted> alone = previous.transform(v -> submitter.insert(p.result()));
          inserted.add(alone);
          previous = alone;
        }
      }
      Future.join(inserted).onComplete(done -> answer(ctx, inserted, trace));
    });
  }

  /** Stores the batch's trace with what it created, hands that to the wheel, answers every item. */
  private void answer(RoutingContext ctx, List<Future<TaskStore.Inserted>> inserted, TaskSubmitter.SubmitTrace trace) {
    List<TaskStore.Inserted> stored = new ArrayList<>();
    JsonArray results = new JsonArray();
    for (int i = 0; i < inserted.size(); i++) {
      Future<TaskStore.Inserted> f = inserted.get(i);
      if (f.succeeded()) {
        stored.add(f.result());
        results.add(itemResult(i, f.result()));
      } else {
        results.add(itemError(i, f.cause()));
      }
    }
    submitter.recordTrace(trace, stored).onComplete(v -> {
      submitter.schedule(stored);
      trace.end(stored, null);
      HttpJson.send(ctx, 200, new JsonObject().put("results", results));
    });
  }

  private static JsonObject itemResult(int index, TaskStore.Inserted ins) {
    JsonObject r = TaskJson.created(ins.task()).put("index", index).put("status_code", ins.duplicate() ? 200 : 201);
    return ins.duplicate() ? r.put("duplicate", true).put("duplicate_reason", ins.duplicateReason().wire()) : r;
  }

  private static JsonObject itemError(int index, Throwable e) {
    Problem problem = e instanceof InvalidRequest ir ? ir.problem()
        : ApiErrors.isDatabaseUnavailable(e) ? Problem.unavailable("the task store is unavailable") : Problem.internal();
    if (!(e instanceof InvalidRequest)) {
      LOG.log(Level.WARNING, "batch item " + index + " answered " + problem.status(), e);
    }
    return new JsonObject().put("index", index).put("status_code", problem.status()).put("error", problem.toJson());
  }
}
