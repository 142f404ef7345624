package ax.store;

import ax.task.Completion;
import ax.task.TaskStatus;

import java.util.List;

/**
 * A batch of {@link Completion}s as the parallel arrays the outcome statements unnest, and the SQL that
 * reads them, shared by the HTTP path ({@link ScheduleStore}) and the executor path
 * ({@link ExecutionStore}) so an outcome means the same thing on both.
 */
final class CompletionColumns {
  private CompletionColumns() {
  }

  /** The CTE {@code v}: one row per completion, from the {@code :c_*} array parameters. */
  static final String V = """
      v AS (
        SELECT * FROM unnest(:c_task_id::bigint[], :c_attempt::int[], :c_status::text[], :c_result::text[],
                             :c_error::text[], :c_retry_count::int[], :c_next_due_ms::bigint[], :c_outcome::text[])
               AS v(task_id, attempt, status, result, error, retry_count, next_due_ms, outcome)
      )""";

  /**
   * The columns an outcome sets on {@code tasks t} from {@code v}. The caller's {@code trigger_time}
   * never changes; a retry or re-fire moves {@code next_trigger_time}, never to before where it was: a
   * call claimed ahead (AX_CLAIM_LEAD_MS) and lost before its trigger time is fired again at that time,
   * not at "now". A lost attempt's re-fire is counted in {@code refires}, not in {@code retry_count}.
   */
  static final String SET_OUTCOME = """
          status            = v.status,
          result            = v.result::jsonb,
          error             = v.error,
          retry_count       = v.retry_count,
          refires           = t.refires + CASE WHEN v.outcome = 'LOST' THEN 1 ELSE 0 END,
          next_trigger_time = CASE WHEN v.next_due_ms >= 0
                                   THEN greatest(timestamptz 'epoch' + v.next_due_ms * interval '1 millisecond',
                                                 t.next_trigger_time)
                                   ELSE t.next_trigger_time END,
          finished_at       = CASE WHEN v.status IN %s THEN now() END,
          lease_deadline    = NULL,
          updated_at        = now()""".formatted(Sql.in(TaskStatus.SUCCESS, TaskStatus.FAILED));

  /** Binds the {@code :c_*} arrays of {@link #V}; the batch must already be in the order to lock rows in. */
  static Sql.Params bind(Sql.Params params, List<Completion> batch) {
    int n = batch.size();
    Long[] ids = new Long[n];
    Integer[] attempts = new Integer[n];
    String[] statuses = new String[n];
    String[] results = new String[n];
    String[] errors = new String[n];
    Integer[] retryCounts = new Integer[n];
    Long[] nextDue = new Long[n];
    String[] outcomes = new String[n];
    for (int i = 0; i < n; i++) {
      Completion c = batch.get(i);
      ids[i] = c.taskId();
      attempts[i] = c.attempt();
      statuses[i] = c.status().name();
      results[i] = c.resultJson();
      errors[i] = c.error();
      retryCounts[i] = c.retryCount();
      nextDue[i] = c.nextDueMs();
      outcomes[i] = c.outcome().name();
    }
    return params.set("c_task_id", ids).set("c_attempt", attempts).set("c_status", statuses)
        .set("c_result", results).set("c_error", errors).set("c_retry_count", retryCounts)
        .set("c_next_due_ms", nextDue).set("c_outcome", outcomes);
  }
}
