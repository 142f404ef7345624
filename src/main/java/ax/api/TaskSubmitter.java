package ax.api;

import ax.bus.Addresses;
import ax.bus.LeaderWatch;
import ax.bus.LocalCodec;
import ax.bus.SubmitMessage;
import ax.bus.TaskBatch;
import ax.clock.DbClock;
import ax.http.CallbackUrlPolicy;
import ax.http.HostResolver;
import ax.store.StoreErrors;
import ax.store.TaskStore;
import ax.task.NewTask;
import ax.task.TaskIdGenerator;
import ax.task.TaskRecord;
import ax.task.TaskStateMachine;
import ax.task.TaskStatus;
import ax.tracing.AxTracing;
import ax.wheel.ScheduledTask;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * How a submission becomes a stored, scheduled task, shared by the create, batch and sync operations:
 * validate ({@link TaskRequestParser}), check the callback host's addresses, assign ids, insert
 * (committed before anyone is answered), then hand the task to the wheel when it is due inside the load
 * window (otherwise the loader finds it in time).
 */
public final class TaskSubmitter {
  private static final Logger LOG = Logger.getLogger(TaskSubmitter.class.getName());
  private final Vertx vertx;
  private final TaskStore tasks;
  /** Plain single submissions arriving together share a statement (and its commit). */
  private final SingleInserts singles;
  private final TaskRequestParser parser;
  private final CallbackUrlPolicy urlPolicy;
  private final HostResolver resolver;
  private final TaskIdGenerator ids;
  /** False while this node's id slot lease is not renewed: it must not issue task ids then. */
  private final BooleanSupplier canIssueIds;
  private final DbClock clock;
  private final long loadWindowMs;
  private final LeaderWatch leader;
  private final AxTracing tracing;

  /** A validated task with its ids (and its shards' ids) and the parents it names, ready to insert. */
  record Prepared(NewTask task, long[] shardIds, TaskRequestParser.DependsOn dependsOn) {
    /** The same task after a batch resolved its {@code "#<index>"} references to task ids. */
    Prepared withParents(long[] taskIds) {
      return new Prepared(task, shardIds, new TaskRequestParser.DependsOn(taskIds, new int[0]));
    }
  }

  public TaskSubmitter(Vertx vertx, TaskStore tasks, CallbackUrlPolicy urlPolicy, HostResolver resolver,
                TaskIdGenerator ids, BooleanSupplier canIssueIds, DbClock clock, long loadWindowMs, LeaderWatch leader) {
    this(vertx, tasks, urlPolicy, resolver, ids, canIssueIds, clock, loadWindowMs, leader, AxTracing.OFF);
  }

  public TaskSubmitter(Vertx vertx, TaskStore tasks, CallbackUrlPolicy urlPolicy, HostResolver resolver,
                TaskIdGenerator ids, BooleanSupplier canIssueIds, DbClock clock, long loadWindowMs, LeaderWatch leader,
                AxTracing tracing) {
    this.tracing = tracing;
    this.vertx = vertx;
    this.tasks = tasks;
    this.singles = new SingleInserts(tasks);
    this.parser = new TaskRequestParser(urlPolicy);
    this.urlPolicy = urlPolicy;
    this.resolver = resolver;
    this.ids = ids;
    this.canIssueIds = canIssueIds;
    this.clock = clock;
    this.loadWindowMs = loadWindowMs;
    this.leader = leader;
  }

  /** Now on the database clock: the base of {@code delay_ms}. */
  /**
   * A new id from this node's generator (tasks and schedules share the id space).
   *
   * @throws InvalidRequest 503 while this node's slot lease is not renewed: another node may hold the
   *                        slot, and ids could collide
   */
  long newId() throws InvalidRequest {
    if (!canIssueIds.getAsBoolean()) {
      throw new InvalidRequest(Problem.unavailable(
          "this node cannot issue ids right now (node slot lease not renewed); retry later"));
    }
    return ids.nextId();
  }

  long now() {
    return clock.nowMillis();
  }

  /** Validates, inserts (committed), and hands the task to the wheel when it is due soon. */
  Future<TaskStore.Inserted> submit(ApiPrincipal who, JsonObject body, long receivedAt) {
    return insert(who, body, receivedAt).onSuccess(ins -> schedule(List.of(ins)));
  }

  /**
   * The trace a submission (one task, a batch, a sync call) joins: with tracing on, an {@code ax.submit}
   * span under the API's server span, whose traceparent is stored with the tasks it creates; tracing off,
   * the caller's own traceparent (null if it sent none), stored to be passed on as it came. With neither,
   * nothing is stored and no statement is added.
   */
  record SubmitTrace(Span span, String traceparent) {
    static final SubmitTrace NONE = new SubmitTrace(null, null);

    /** Ends the span (if any) with what the submission created; {@code error} null = it succeeded. */
    void end(List<TaskStore.Inserted> inserted, String error) {
      if (span == null) {
        return;
      }
      if (inserted.size() == 1) {
        TaskStore.Inserted one = inserted.get(0);
        span.setAttribute(AxTracing.TASK_ID, Long.toString(one.task().taskId()));
        span.setAttribute(AxTracing.TASK_TYPE, one.task().taskType());
        span.setAttribute("ax.duplicate", one.duplicate());
      } else {
        span.setAttribute("ax.batch.created", inserted.stream().filter(i -> !i.duplicate()).count());
        span.setAttribute("ax.batch.stored", inserted.size());
      }
      AxTracing.end(span, error);
    }
  }

  /** Starts the trace of a submission; {@code callerTraceparent} is the caller's valid header or null. */
  SubmitTrace startTrace(String callerTraceparent) {
    if (!tracing.on()) {
      return callerTraceparent == null ? SubmitTrace.NONE : new SubmitTrace(null, callerTraceparent);
    }
    Span span = tracing.startInCurrent(AxTracing.SUBMIT, SpanKind.INTERNAL);
    return new SubmitTrace(span, AxTracing.traceparent(span));
  }

  /**
   * Stores the trace with every task the submission created and their shards (a duplicate keeps its
   * own), before they are handed to the wheel, so the spans made when they fire join it. One statement;
   * a failure costs the trace, never the submission.
   */
  Future<Void> recordTrace(SubmitTrace trace, List<TaskStore.Inserted> inserted) {
    if (trace.traceparent() == null) {
      return Future.succeededFuture();
    }
    List<Long> ids = new ArrayList<>();
    for (TaskStore.Inserted ins : inserted) {
      if (!ins.duplicate()) {
        ids.add(ins.task().taskId());
        for (long shard : ins.shardIds()) {
          ids.add(shard);
        }
      }
    }
    if (ids.isEmpty()) {
      return Future.succeededFuture();
    }
    return tasks.recordTraceparent(ids.stream().mapToLong(Long::longValue).toArray(), trace.traceparent())
        .<Void>mapEmpty().recover(e -> {
          LOG.log(Level.WARNING, ids.size() + " tasks: storing their traceparent failed; they run untraced", e);
          return Future.succeededFuture();
        });
  }

  /** As {@link #submit(ApiPrincipal, JsonObject, long)}, traced ({@link #startTrace}). */
  Future<TaskStore.Inserted> submit(ApiPrincipal who, JsonObject body, long receivedAt, String callerTraceparent) {
    SubmitTrace trace = startTrace(callerTraceparent);
    if (trace == SubmitTrace.NONE) {
      return submit(who, body, receivedAt);
    }
    return insert(who, body, receivedAt)
        .compose(ins -> recordTrace(trace, List.of(ins)).map(ins))
        .onSuccess(ins -> schedule(List.of(ins)))
        .onComplete(ar -> trace.end(ar.succeeded() ? List.of(ar.result()) : List.of(),
            ar.failed() ? ar.cause().getMessage() : null));
  }

  /** Validates and inserts (committed); the caller hands the task to the wheel (or a waiter does). */
  Future<TaskStore.Inserted> insert(ApiPrincipal who, JsonObject body, long receivedAt) {
    return prepare(who, body, receivedAt).compose(this::insert);
  }

  /** Inserts one prepared task with its shards; a broken table invariant is the caller's 400. */
  Future<TaskStore.Inserted> insert(Prepared p) {
    if (p.dependsOn().batchItems().length > 0) {
      return Future.failedFuture(InvalidRequest.field("depends_on",
          "\"#" + p.dependsOn().batchItems()[0] + "\" names an item of a batch; outside POST /openapi/v1/tasks/batch "
              + "name task ids"));
    }
    Future<TaskStore.Inserted> stored = !p.dependsOn().isEmpty()
        ? tasks.insertWithParents(p.task(), p.shardIds(), p.dependsOn().taskIds())
        : SingleInserts.takes(p.task(), p.shardIds()) ? singles.insert(p.task()) : tasks.insert(p.task(), p.shardIds());
    return stored.recover(TaskSubmitter::asRefusal);
  }

  /**
   * As {@link #insert(Prepared)} in the caller's transaction (a batch that builds a graph). Only an
   * unknown parent is answered as the item's own 400 here: it is found before anything is written, so
   * the transaction goes on; any other failure aborts the transaction and fails the batch.
   */
  Future<TaskStore.Inserted> insert(TaskStore.Writes tx, Prepared p) {
    return tx.insert(p.task(), p.shardIds(), p.dependsOn().taskIds())
        .recover(e -> e instanceof TaskStore.UnknownParents ? asRefusal(e) : Future.failedFuture(e));
  }

  /** Validates, checks the callback host's addresses, and assigns ids; inserts nothing. */
  Future<Prepared> prepare(ApiPrincipal who, JsonObject body, long receivedAt) {
    TaskRequestParser.Submission s;
    try {
      s = parser.parse(body, receivedAt);
    } catch (InvalidRequest e) {
      return Future.failedFuture(e);
    }
    if (!canIssueIds.getAsBoolean()) {
      return Future.failedFuture(new InvalidRequest(Problem.unavailable(
          "this node cannot issue task ids right now (node slot lease not renewed); retry later")));
    }
    return checkCallbackHost(s.callbackUrl()).compose(v -> checkHost("notify_url", s.notifyUrl())).compose(v -> {
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
      return Future.succeededFuture(new Prepared(t, shardIds, s.dependsOn()));
    });
  }

  /** Hands the new tasks (and their shards) that are due inside the load window to the wheel. */
  void schedule(List<TaskStore.Inserted> inserted) {
    List<ScheduledTask> due = new ArrayList<>();
    long horizon = clock.nowMillis() + loadWindowMs;
    for (TaskStore.Inserted ins : inserted) {
      TaskRecord r = ins.task();
      long trigger = r.triggerTime().toInstant().toEpochMilli();
      // CREATED waits for its parents (their trigger lets it go and announces it); SKIPPED never runs.
      boolean dueAble = r.status() == TaskStatus.DELAYED || r.status() == TaskStatus.READY;
      if (!ins.duplicate() && dueAble && trigger <= horizon) {
        due.add(new ScheduledTask(r.taskId(), trigger, r.priority()));
        for (long shard : ins.shardIds()) {
          due.add(new ScheduledTask(shard, trigger, r.priority()));
        }
      }
    }
    toWheel(due);
  }

  /**
   * The leader's wheel takes it directly when this node leads; otherwise it crosses the cluster. If
   * that message is lost (no leader right now), the next leader's loader finds the task in PostgreSQL.
   */
  void toWheel(List<ScheduledTask> due) {
    if (due.isEmpty()) {
      return;
    }
    if (leader.isLeader()) {
      vertx.eventBus().send(Addresses.WHEEL_SCHEDULE, new TaskBatch(due), LocalCodec.localOnly());
    } else {
      vertx.eventBus().send(Addresses.WHEEL_SUBMIT, SubmitMessage.encode(due));
    }
  }

  /** Values the database refuses (an invariant, or data it cannot hold) make a request invalid, not a 500. */
  static boolean isInvariantViolation(Throwable e) {
    return StoreErrors.isRefusedValue(e);
  }

  /** A parent that is not the caller's task, or a value the table refuses: the request is invalid (400). */
  private static <T> Future<T> asRefusal(Throwable e) {
    if (e instanceof TaskStore.UnknownParents u) {
      return Future.failedFuture(InvalidRequest.field("depends_on", "no task " + u.missing().get(0)
          + (u.missing().size() > 1 ? " (and " + (u.missing().size() - 1) + " more)" : "")));
    }
    return Future.failedFuture(isInvariantViolation(e) ? InvalidRequest.field("body",
        "refused by the task store: " + StoreErrors.message(e)) : e);
  }

  /** The parser submissions go through (schedule templates are checked with it too). */
  TaskRequestParser parser() {
    return parser;
  }

  /** Resolves the callback host and refuses it if it points somewhere private (no-op without a URL). */
  Future<Void> checkCallbackHost(String callbackUrl) {
    return checkHost("callback_url", callbackUrl);
  }

  /** As {@link #checkCallbackHost} for a webhook URL. */
  Future<Void> checkNotifyHost(String notifyUrl) {
    return checkHost("notify_url", notifyUrl);
  }

  /** As {@link #checkCallbackHost} for the URL in {@code field} (callback_url or notify_url). */
  private Future<Void> checkHost(String field, String url) {
    if (url == null) {
      return Future.succeededFuture();
    }
    String host = urlPolicy.hostOf(url);
    String title = field.equals("callback_url") ? "Callback URL refused" : "Notify URL refused";
    return resolver.resolve(host)
        .recover(e -> Future.failedFuture(new InvalidRequest(new Problem(400, "callback_url_not_allowed",
            title, field + ": host " + host + " does not resolve"))))
        .compose(addresses -> {
          CallbackUrlPolicy.Verdict v = urlPolicy.checkResolved(host, addresses);
          return v.allowed() ? Future.succeededFuture()
              : Future.failedFuture(new InvalidRequest(new Problem(400, v.code(), title,
                  field + ": " + v.detail())));
        });
  }
}
