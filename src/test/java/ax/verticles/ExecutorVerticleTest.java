package ax.verticles;

import ax.bus.Addresses;
import ax.bus.LocalCodec;
import ax.bus.ReadyBatch;
import ax.clock.DbClock;
import ax.delivery.DispatchSettings;
import ax.fleet.ExecutorView;
import ax.leader.LeaderTerm;
import ax.metrics.AxMetrics;
import ax.protocol.Ack;
import ax.protocol.Dispatch;
import ax.protocol.DispatchedTask;
import ax.protocol.ExecutorAddresses;
import ax.protocol.Heartbeat;
import ax.protocol.RegisterReply;
import ax.protocol.Registration;
import ax.protocol.ResultBatch;
import ax.protocol.ResultReply;
import ax.protocol.TaskOutcome;
import ax.store.ExecutionStore;
import ax.store.LeaseStore;
import ax.store.TaskStore;
import ax.task.NewTask;
import ax.task.OutcomePolicy;
import ax.task.ReadyTask;
import ax.task.RetryBackoff;
import ax.task.TaskStatus;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Checkpoint;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ExecutorVerticle deployed in a real Vert.x against a real PostgreSQL, with a stand-in executor on the
 * event bus: it must carry the dispatch's commands out in order — register, heartbeat, DISPATCHING write,
 * push, ack, result write — and refuse everything once its term is over.
 */
@ExtendWith(VertxExtension.class)
class ExecutorVerticleTest {
  private static final String EXECUTOR = "ex-1";
  private static final long CLAIM_LEAD_MS = 2_000;

  private VerticleDatabase db;
  private TaskStore tasks;
  private LeaderTerm term;
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  @BeforeEach
  void deploy(Vertx vertx, VertxTestContext ctx) {
    db = VerticleDatabase.create(vertx);
    tasks = new TaskStore(db.pool);
    term = db.leadScheduler("node-a/1");
    DbClock clock = DbClock.system();
    clock.anchorMillis(System.currentTimeMillis(), System.nanoTime()); // same machine as the database
    ExecutorVerticle verticle = new ExecutorVerticle(new ExecutionStore(db.pool, "node-a"), clock,
        new AxMetrics(meters), DispatchSettings.of(60_000, 2_000, 1_000).withClaimLeadMs(CLAIM_LEAD_MS),
        new OutcomePolicy(RetryBackoff.defaults()),
        type -> (views, key) -> views.stream().filter(ExecutorView::available).map(ExecutorView::executorId).findFirst());
    vertx.deployVerticle(verticle).onComplete(ctx.succeeding(id -> {
      vertx.eventBus().publish(Addresses.LEADER_CHANGED, term, LocalCodec.localOnly());
      awaitLeading(vertx, ctx, 50);
    }));
  }

  /** The term reaches the verticle asynchronously; it answers the stats address once it leads. */
  private static void awaitLeading(Vertx vertx, VertxTestContext ctx, int tries) {
    vertx.eventBus().<JsonObject>request(Addresses.EXEC_STATS, null).onComplete(ar -> {
      if (ar.succeeded() && ar.result().body().getBoolean("leader")) {
        ctx.completeNow();
      } else if (tries == 0) {
        ctx.failNow("the verticle never started leading");
      } else {
        vertx.setTimer(20, t -> awaitLeading(vertx, ctx, tries - 1));
      }
    });
  }

  @AfterEach
  void close() {
    db.close();
  }

  private static DeliveryOptions fromExecutor() {
    return new DeliveryOptions().addHeader(ExecutorAddresses.EXECUTOR_HEADER, EXECUTOR);
  }

  private NewTask dueProcessorTask() {
    return processorTaskDueAt(System.currentTimeMillis() - 1_000);
  }

  private NewTask processorTaskDueAt(long triggerMs) {
    NewTask t = new NewTask(4_242L, "tenant-a", "key-a", "report.build", triggerMs, TaskStatus.DELAYED, 5, 2, 60_000,
        null, "reports", "{\"n\":1}", null);
    tasks.insert(t).await();
    return t;
  }

  /**
   * A task claimed ahead reaches the dispatch at once: it is written DISPATCHING then, and pushed at its
   * trigger time, never before — the write's round trip is not part of its lateness.
   */
  @Test
  void aTaskClaimedAheadIsWrittenAtOnceAndPushedAtItsTriggerTime(Vertx vertx, VertxTestContext ctx) {
    NewTask task = processorTaskDueAt(System.currentTimeMillis() + 1_500);
    var bus = vertx.eventBus();
    bus.<JsonObject>consumer(ExecutorAddresses.inbox(EXECUTOR), msg -> {
      long pushedAt = System.currentTimeMillis();
      db.pool.query("SELECT status, (extract(epoch FROM updated_at) * 1000)::bigint AS written_ms FROM tasks"
          + " WHERE task_id = " + task.taskId()).execute().onComplete(ctx.succeeding(rows -> ctx.verify(() -> {
            var row = rows.iterator().next();
            assertTrue(pushedAt >= task.triggerTimeMs(), "pushed " + (task.triggerTimeMs() - pushedAt) + " ms early");
            assertEquals("DISPATCHING", row.getString("status"));
            assertTrue(row.getLong("written_ms") < task.triggerTimeMs(), "written ahead of the trigger time");
            ctx.completeNow();
          })));
    });
    registerAndSendReady(bus, task);
  }

  @Test
  void aRegisteredExecutorGetsAReadyTaskPushedAndItsResultIsRecorded(Vertx vertx, VertxTestContext ctx) {
    NewTask task = dueProcessorTask();
    Checkpoint pushed = ctx.checkpoint();
    Checkpoint recorded = ctx.checkpoint();
    var bus = vertx.eventBus();
    // The stand-in executor: acks every pushed task, then reports it done.
    bus.<JsonObject>consumer(ExecutorAddresses.inbox(EXECUTOR), msg -> ctx.verify(() -> {
      JsonArray raw = Dispatch.rawTasks(msg.body());
      DispatchedTask t = DispatchedTask.fromJson(raw.getJsonObject(0));
      assertEquals(Long.toString(task.taskId()), t.taskId());
      assertEquals(1, t.attempt());
      assertEquals(term.epoch(), Dispatch.epochOf(msg.body()));
      msg.reply(new Ack(List.of(t.taskId()), List.of(), null).toJson());
      pushed.flag();
      JsonObject results = new ResultBatch(EXECUTOR, "s", List.of(new TaskOutcome(t.taskId(), t.attempt(), 0, true,
          new JsonObject().put("rows", 3), null, 5))).toJson();
      bus.<JsonObject>request(ExecutorAddresses.RESULT, results, fromExecutor())
          .compose(reply -> {
            ctx.verify(() -> assertEquals(List.of(t.taskId()), ResultReply.fromJson(reply.body()).applied()));
            return tasks.find("tenant-a", task.taskId());
          })
          .onComplete(ctx.succeeding(stored -> ctx.verify(() -> {
            assertEquals(TaskStatus.SUCCESS, stored.orElseThrow().status());
            assertEquals(new JsonObject().put("rows", 3), new JsonObject(String.valueOf(stored.orElseThrow().result())));
            assertHandOverAndOutcomeMeasured();
            recorded.flag();
          })));
    }));
    registerAndSendReady(bus, task);
  }

  /**
   * The node still believes it leads, but its lease lapsed in the database (its step-down comes a moment
   * later): the result write is fenced out. The executor must hear "not recorded, send again" (503), which
   * it keeps the result for, and not "refused", which it drops — the task would run again at its deadline.
   */
  @Test
  void aResultReachingALeaderWhoseLeaseLapsedIsToBeSentAgainNotRefused(Vertx vertx, VertxTestContext ctx) {
    NewTask task = dueProcessorTask();
    var bus = vertx.eventBus();
    bus.<JsonObject>consumer(ExecutorAddresses.inbox(EXECUTOR), msg -> {
      DispatchedTask t = DispatchedTask.fromJson(Dispatch.rawTasks(msg.body()).getJsonObject(0));
      msg.reply(new Ack(List.of(t.taskId()), List.of(), null).toJson());
      JsonObject results = new ResultBatch(EXECUTOR, "s", List.of(new TaskOutcome(t.taskId(), t.attempt(), 0, true,
          null, null, 5))).toJson();
      db.pool.query("UPDATE leases SET expires_at = now() - interval '1 millisecond'").execute()
          .compose(lapsed -> bus.<JsonObject>request(ExecutorAddresses.RESULT, results, fromExecutor()))
          .onComplete(ctx.failing(e -> ctx.verify(() -> {
            assertEquals(503, ((ReplyException) e).failureCode(), e.getMessage());
            tasks.find("tenant-a", task.taskId()).onComplete(ctx.succeeding(stored -> ctx.verify(() -> {
              assertTrue(stored.orElseThrow().status() != TaskStatus.SUCCESS, "nothing written");
              ctx.completeNow();
            })));
          })));
    });
    registerAndSendReady(bus, task);
  }

  private static void registerAndSendReady(io.vertx.core.eventbus.EventBus bus, NewTask task) {
    Registration registration = new Registration(EXECUTOR, List.of("reports"), Map.of("default", 2), 1, null, "test");
    bus.<JsonObject>request(ExecutorAddresses.REGISTER, registration.toJson(), fromExecutor())
        .compose(reply -> {
          String session = RegisterReply.fromJson(reply.body(), EXECUTOR).session();
          return bus.<JsonObject>request(ExecutorAddresses.HEARTBEAT, new Heartbeat(EXECUTOR, session,
              Map.of("default", 2), 2, 0, 0.1, 0, 0, 0).toJson(), fromExecutor());
        })
        .onSuccess(alive -> {
          ReadyTask ready = new ReadyTask(task.taskId(), "report.build", "reports", 5, task.triggerTimeMs(),
              task.triggerTimeMs(), 60_000, "{\"n\":1}", 0, 2, 1, 0, null);
          bus.send(Addresses.EXEC_READY, new ReadyBatch(List.of(ready)), LocalCodec.localOnly());
        });
  }

  /** The ack is the hand-over (R9): lateness and dispatch counted there; the result is an execute outcome. */
  private void assertHandOverAndOutcomeMeasured() {
    assertEquals(1.0, meters.find("ax_dispatch_total").tag("target", "executor").tag("outcome", "acked").counter()
        .count());
    var delay = meters.find("ax_schedule_delay").tag("target", "executor").timer();
    assertEquals(1, delay.count());
    assertTrue(delay.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS) >= 1_000, "due a second before the ack");
    assertEquals(1, meters.find("ax_dispatch_latency").tag("target", "executor").timer().count());
    assertEquals(1, meters.find("ax_executor_batch_size").summary().count());
    assertEquals(1.0, meters.find("ax_execute_total").tag("target", "executor").tag("outcome", "success").counter()
        .count());
    assertEquals(1, meters.find("ax_task_retries").summary().count(), "a task that finished, with 0 retries");
  }

  @Test
  void anExecutorRegisteringUnderAnotherIdOrAfterTheTermIsRefused(Vertx vertx, VertxTestContext ctx) {
    var bus = vertx.eventBus();
    Registration other = new Registration("ex-2", List.of("reports"), Map.of("default", 1), 0, null, null);
    bus.request(ExecutorAddresses.REGISTER, other.toJson(), fromExecutor()).onComplete(ctx.failing(e ->
        ctx.verify(() -> {
          assertEquals(403, ((ReplyException) e).failureCode());
          bus.publish(Addresses.LEADER_CHANGED, LeaderTerm.standby(LeaseStore.SCHEDULER, "node-a/1"),
              LocalCodec.localOnly());
          registerUntilNobodyListens(vertx, ctx, 50);
        })));
  }

  /**
   * After the term the verticle stops consuming the executor addresses (asynchronously): a register may
   * be refused or lost on the way, but never accepted, and soon nobody listens at all.
   */
  private static void registerUntilNobodyListens(Vertx vertx, VertxTestContext ctx, int tries) {
    Registration mine = new Registration(EXECUTOR, List.of("reports"), Map.of("default", 1), 0, null, null);
    vertx.eventBus().request(ExecutorAddresses.REGISTER, mine.toJson(), fromExecutor().setSendTimeout(500))
        .onComplete(ar -> {
          if (ar.succeeded()) {
            ctx.failNow("a standby accepted a registration");
          } else if (ar.cause() instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS) {
            ctx.completeNow();
          } else if (tries == 0) {
            ctx.failNow(ar.cause());
          } else {
            vertx.setTimer(20, t -> registerUntilNobodyListens(vertx, ctx, tries - 1));
          }
        });
  }

  /**
   * A graceful stop asks the verticle to close hand-overs on every node; a standby has none and must answer
   * at once (it threw instead, so the stop of every standby waited out the request's timeout, ack timeout
   * + 5 s, and the node logged SEVERE).
   */
  @Test
  void aStandbyAnswersTheStopsCloseHandOversAtOnce(Vertx vertx, VertxTestContext ctx) {
    vertx.eventBus().publish(Addresses.LEADER_CHANGED, LeaderTerm.standby(LeaseStore.SCHEDULER, "node-a/1"),
        LocalCodec.localOnly());
    awaitTermEnded(vertx, 50)
        .compose(v -> vertx.eventBus().<Integer>request(Addresses.EXEC_CLOSE_HAND_OVERS, null,
            new DeliveryOptions().setLocalOnly(true).setSendTimeout(1_000)))
        .onComplete(ctx.succeeding(reply -> ctx.verify(() -> {
          assertEquals(0, reply.body(), "hand-overs in flight on a standby");
          ctx.completeNow();
        })));
  }

  /** Completes once the term's consumers are gone (the stats address has no handler any more). */
  private static io.vertx.core.Future<Void> awaitTermEnded(Vertx vertx, int tries) {
    return vertx.eventBus().request(Addresses.EXEC_STATS, null, new DeliveryOptions().setSendTimeout(500))
        .<Void>mapEmpty()
        .transform(ar -> {
          if (ar.failed() && ar.cause() instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS) {
            return io.vertx.core.Future.succeededFuture();
          }
          if (tries == 0) {
            return io.vertx.core.Future.failedFuture("the term never ended");
          }
          io.vertx.core.Promise<Void> later = io.vertx.core.Promise.promise();
          vertx.setTimer(20, t -> awaitTermEnded(vertx, tries - 1).onComplete(later));
          return later.future();
        });
  }
}
