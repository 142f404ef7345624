package ax.http;

import ax.clock.Rfc3339;
import ax.json.JsonText;

import java.time.OffsetDateTime;

/**
 * The body ax POSTs to {@code notify_url} when a task reaches a terminal status (API.md "Outgoing
 * calls"): {@code {"task_id","task_type","status","result","error","attempts","finished_at"}}.
 * {@code resultJson} is the stored result, JSON text, written as it is.
 */
public final class WebhookBody {
  private WebhookBody() {
  }

  public static String of(long taskId, String taskType, String status, String resultJson, String error, int attempts,
                          OffsetDateTime finishedAt) {
    return "{\"task_id\":\"" + taskId + "\""
        + ",\"task_type\":" + JsonText.encode(taskType)
        + ",\"status\":\"" + status + "\""
        + ",\"result\":" + (resultJson == null ? "null" : resultJson)
        + ",\"error\":" + (error == null ? "null" : JsonText.encode(error))
        + ",\"attempts\":" + attempts
        + ",\"finished_at\":" + (finishedAt == null ? "null" : "\"" + Rfc3339.format(finishedAt) + "\"") + "}";
  }
}
