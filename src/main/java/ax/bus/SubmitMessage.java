package ax.bus;

import ax.wheel.ScheduledTask;
import io.vertx.core.json.JsonArray;

import java.util.ArrayList;
import java.util.List;

/**
 * Wire form of {@link Addresses#WHEEL_SUBMIT}: new tasks a non-leader node accepted, for the leader's
 * wheel, as {@code [["task_id", trigger_ms, priority], …]} (ids as strings: they exceed 2^53). Lost
 * messages cost only latency: the leader's loader and recovery scan find every task in PostgreSQL.
 */
public final class SubmitMessage {
  private SubmitMessage() {
  }

  public static JsonArray encode(List<ScheduledTask> tasks) {
    JsonArray out = new JsonArray();
    for (ScheduledTask t : tasks) {
      out.add(new JsonArray().add(Long.toString(t.taskId())).add(t.triggerTimeMs()).add(t.priority()));
    }
    return out;
  }

  public static List<ScheduledTask> decode(JsonArray body) {
    List<ScheduledTask> out = new ArrayList<>(body.size());
    for (int i = 0; i < body.size(); i++) {
      JsonArray t = body.getJsonArray(i);
      out.add(new ScheduledTask(Long.parseLong(t.getString(0)), t.getLong(1), t.getInteger(2)));
    }
    return out;
  }
}
