package ax.api;

import ax.store.AttemptStore;
import ax.store.TaskStore;
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

  public TaskApi(Vertx vertx, TaskSubmitter submitter, TaskStore tasks, AttemptStore attempts) {
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
