package ax.api;

import ax.store.AttemptStore;
import ax.store.RecurringScheduleStore;
import ax.store.TaskStore;
import ax.store.WebhookStore;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;

import java.util.Map;

/**
 * The task operations of openapi.yaml by operationId, each bound to the class that does it: single
 * tasks ({@link TaskHandlers}), batches ({@link BatchHandler}), listing ({@link TaskListHandler}), the
 * sync endpoint ({@link SyncHandler}) and recurring schedules ({@link ScheduleHandlers}), all submitting
 * through one {@link TaskSubmitter}.
 */
public final class TaskApi {
  private final Map<String, Handler<RoutingContext>> operations;

  public TaskApi(Vertx vertx, TaskSubmitter submitter, TaskStore tasks, AttemptStore attempts,
                 RecurringScheduleStore schedules, WebhookStore webhooks) {
    TaskHandlers single = new TaskHandlers(vertx, submitter, tasks, attempts);
    BatchHandler batch = new BatchHandler(submitter, tasks);
    TaskListHandler list = new TaskListHandler(tasks);
    SyncHandler sync = new SyncHandler(vertx, submitter, tasks);
    ScheduleHandlers recurring = new ScheduleHandlers(vertx, submitter, schedules,
        new ScheduleRequestParser(submitter.parser()));
    this.operations = Map.ofEntries(
        Map.entry("createSchedule", recurring::create),
        Map.entry("getSchedule", recurring::get),
        Map.entry("listSchedules", recurring::list),
        Map.entry("pauseSchedule", recurring::pause),
        Map.entry("resumeSchedule", recurring::resume),
        Map.entry("triggerSchedule", recurring::trigger),
        Map.entry("deleteSchedule", recurring::delete),
        Map.entry("replaceSchedule", recurring::replace),
        Map.entry("createTask", single::create),
        Map.entry("getTask", single::get),
        Map.entry("cancelTask", single::cancel),
        Map.entry("listTaskAttempts", single::listAttempts),
        Map.entry("listTaskNotifications", new NotificationHandler(webhooks)::handle),
        Map.entry("createTaskBatch", batch::handle),
        Map.entry("listTasks", list::handle),
        Map.entry("runTaskSync", sync::handle));
  }

  /** The handler of each task operation, keyed by its operationId in openapi.yaml. */
  public Map<String, Handler<RoutingContext>> byOperationId() {
    return operations;
  }
}
