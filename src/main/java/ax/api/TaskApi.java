package ax.api;

import ax.bus.LeaderWatch;
import ax.clock.DbClock;
import ax.http.CallbackUrlPolicy;
import ax.http.HostResolver;
import ax.node.NodeSlotKeeper;
import ax.store.AttemptStore;
import ax.store.TaskStore;
import ax.task.TaskIdGenerator;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;

import java.util.Map;

/**
 * The task operations of openapi.yaml by operationId, each bound to the class that does it: single
 * tasks ({@link TaskHandlers}), batches ({@link BatchHandler}), listing ({@link TaskListHandler}) and
 * the sync endpoint ({@link SyncHandler}), all submitting through one {@link TaskSubmitter}.
 */
public final class TaskApi {
  private final Map<String, Handler<RoutingContext>> operations;

  public TaskApi(Vertx vertx, TaskStore tasks, AttemptStore attempts, CallbackUrlPolicy urlPolicy,
                 HostResolver resolver, TaskIdGenerator ids, NodeSlotKeeper slot, DbClock clock, long loadWindowMs,
                 LeaderWatch leader) {
    TaskSubmitter submitter = new TaskSubmitter(vertx, tasks, urlPolicy, resolver, ids, slot, clock, loadWindowMs,
        leader);
    TaskHandlers single = new TaskHandlers(vertx, submitter, tasks, attempts);
    BatchHandler batch = new BatchHandler(submitter, tasks);
    TaskListHandler list = new TaskListHandler(tasks);
    SyncHandler sync = new SyncHandler(vertx, submitter, tasks);
    this.operations = Map.of(
        "createTask", single::create,
        "getTask", single::get,
        "cancelTask", single::cancel,
        "listTaskAttempts", single::listAttempts,
        "createTaskBatch", batch::handle,
        "listTasks", list::handle,
        "runTaskSync", sync::handle);
  }

  /** The handler of each task operation, keyed by its operationId in openapi.yaml. */
  public Map<String, Handler<RoutingContext>> byOperationId() {
    return operations;
  }
}
