package ax.store;

import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;

import java.util.ArrayList;
import java.util.List;

/**
 * A task's current attempt and retry budget: what the retry policy needs to settle an attempt that
 * did not report (overdue RUNNING, an OFFLINE executor's tasks) or whose result reached a leader that
 * did not dispatch it. Read from columns {@code task_id, attempt, retry_count, max_retry}.
 */
public record AttemptBudget(long taskId, int attempt, int retryCount, int maxRetry) {

  static List<AttemptBudget> from(RowSet<Row> rows) {
    List<AttemptBudget> out = new ArrayList<>(rows.rowCount());
    for (Row r : rows) {
      out.add(new AttemptBudget(r.getLong("task_id"), r.getInteger("attempt"), r.getShort("retry_count"),
          r.getShort("max_retry")));
    }
    return out;
  }
}
