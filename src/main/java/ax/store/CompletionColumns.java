package ax.store;

import ax.dispatch.Completion;
import io.vertx.sqlclient.Tuple;

import java.util.List;

/**
 * A batch of {@link Completion}s as the eight parallel arrays the outcome statements unnest
 * ({@code task_id, attempt, status, result, error, retry_count, next_trigger_ms, outcome}), and the SQL
 * that reads them, shared by the HTTP path ({@link ScheduleStore}) and the executor path
 * ({@link ExecutionStore}) so an outcome means the same thing on both.
 */
final class CompletionColumns {
  private CompletionColumns() {
  }

  /** The CTE {@code v} over the eight arrays, bound from parameter {@code $first} on. */
  static String unnestAsV(int first) {
    StringBuilder p = new StringBuilder();
    String[] types = {"bigint", "int", "text", "text", "text", "int", "bigint", "text"};
    for (int i = 0; i < types.length; i++) {
      p.append(i == 0 ? "" : ", ").append('$').append(first + i).append("::").append(types[i]).append("[]");
    }
    return "v AS (\n  SELECT * FROM unnest(" + p
        + ")\n         AS v(task_id, attempt, status, result, error, retry_count, next_trigger_ms, outcome)\n)";
  }

  /** The columns an outcome sets on {@code tasks t} from {@code v} (finished_at only when terminal). */
  static final String SET_OUTCOME = """
          status         = v.status,
          result         = v.result::jsonb,
          error          = v.error,
          retry_count    = v.retry_count,
          trigger_time   = CASE WHEN v.next_trigger_ms >= 0
                                THEN timestamptz 'epoch' + v.next_trigger_ms * interval '1 millisecond'
                                ELSE t.trigger_time END,
          finished_at    = CASE WHEN v.status IN ('SUCCESS','FAILED') THEN now() END,
          lease_deadline = NULL,
          updated_at     = now()""";

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
