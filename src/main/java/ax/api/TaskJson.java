package ax.api;

import ax.json.JsonText;
import ax.clock.Rfc3339;
import ax.task.FinishedAttempt;
import ax.task.TaskRecord;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The API's JSON view of a stored task. Ids are decimal strings so JavaScript clients keep all 64 bits.
 * {@link #full} writes every member of openapi.yaml's {@code Task}, a member without a value as null:
 * clients can tell "no value" from "not sent by this version".
 */
public final class TaskJson {
  private TaskJson() {
  }

  public static JsonObject created(TaskRecord t) {
    return new JsonObject().put("task_id", Long.toString(t.taskId())).put("status", t.status().name())
        .put("trigger_time", Rfc3339.format(t.triggerTime()));
  }

  public static JsonObject full(TaskRecord t) {
    return new JsonObject()
        .put("task_id", Long.toString(t.taskId()))
        .put("task_type", t.taskType())
        .put("status", t.status().name())
        .put("trigger_time", Rfc3339.format(t.triggerTime()))
        .put("payload", JsonText.parseOrText(t.payload()))
        .put("callback_url", t.callbackUrl())
        .put("processor", t.processor())
        .put("max_retry", t.maxRetry())
        .put("retry_count", t.retryCount())
        .put("attempt", t.attempt())
        .put("priority", t.priority())
        .put("timeout_ms", t.timeoutMs())
        .put("biz_key", t.bizKey())
        .put("notify_url", t.notifyUrl())
        .put("dedupe", t.dedupe())
        .put("shard_total", t.shardTotal())
        .put("depends_on", dependsOn(t))
        .put("last_run_node", t.lastRunNode())
        .put("created_at", Rfc3339.format(t.createdAt()))
        .put("updated_at", Rfc3339.format(t.updatedAt()))
        .put("started_at", Rfc3339.format(t.startedAt()))
        .put("finished_at", Rfc3339.format(t.finishedAt()))
        .put("result", JsonText.parseOrText(t.result()))
        .put("error", t.error())
        .put("schedule_id", t.scheduleId() == null ? null : Long.toString(t.scheduleId()))
        .put("scheduled_time", Rfc3339.format(t.scheduledTime()));
  }

  private static JsonArray dependsOn(TaskRecord t) {
    JsonArray ids = new JsonArray();
    t.dependsOn().forEach(id -> ids.add(Long.toString(id)));
    return ids;
  }

  /** One entry of {@code GET /openapi/v1/tasks/{id}/attempts}; every member present, times as RFC 3339. */
  public static JsonObject attempt(FinishedAttempt a) {
    return new JsonObject()
        .put("attempt", a.attempt())
        .put("node_id", a.nodeId())
        .put("executor_id", a.executorId())
        .put("started_at", Rfc3339.format(a.startedAt()))
        .put("finished_at", Rfc3339.format(a.finishedAt()))
        .put("outcome", a.outcome())
        .put("error", a.error());
  }
}
