package ax.store;

import ax.dispatch.Completion;
import io.vertx.sqlclient.Tuple;

import java.util.List;

/**
 * A batch of {@link Completion}s as the eight parallel arrays the outcome statements unnest
 * ({@code task_id, attempt, status, result, error, retry_count, next_trigger_ms, outcome}), shared by
 * the HTTP path ({@link ScheduleStore}) and the executor path ({@link ExecutionStore}).
 */
final class CompletionColumns {
  private CompletionColumns() {
  }

  static Tuple appendTo(Tuple params, List<Completion> batch) {
    int n = batch.size();
    Long[] ids = new Long[n];
    Integer[] attempts = new Integer[n];
    String[] statuses = new String[n];
    String[] results = new String[n];
    String[] errors = new String[n];
    Integer[] retryCounts = new Integer[n];
    Long[] nextTriggers = new Long[n];
    String[] outcomes = new String[n];
    for (int i = 0; i < n; i++) {
      Completion c = batch.get(i);
      ids[i] = c.taskId();
      attempts[i] = c.attempt();
      statuses[i] = c.status().name();
      results[i] = c.resultJson();
      errors[i] = c.error();
      retryCounts[i] = c.retryCount();
      nextTriggers[i] = c.nextTriggerMs();
      outcomes[i] = c.outcome();
    }
    return params.addValue(ids).addValue(attempts).addValue(statuses).addValue(results).addValue(errors)
        .addValue(retryCounts).addValue(nextTriggers).addValue(outcomes);
  }
}
