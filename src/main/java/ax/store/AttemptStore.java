package ax.store;

import ax.task.FinishedAttempt;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads the attempt log (rows are written by {@link ScheduleStore#completeRunning}). */
public final class AttemptStore {

  /**
   * Tenant-scoped through the task: no row when the task is not the tenant's, one row with a null
   * attempt when it is but has no finished attempt yet.
   */
  private static final Sql LIST = Sql.of("""
      SELECT t.task_id, a.attempt, a.node_id, a.executor_id, a.started_at, a.finished_at, a.outcome, a.error
        FROM tasks t LEFT JOIN task_attempts a ON a.task_id = t.task_id
       WHERE t.task_id = :id AND t.tenant_id = :tenant
       ORDER BY a.attempt""");

  private final Pool pool;

  public AttemptStore(Pool pool) {
    this.pool = pool;
  }

  /** The task's finished attempts, oldest first; empty when the tenant has no such task. */
  public Future<Optional<List<FinishedAttempt>>> list(String tenantId, long taskId) {
    return pool.preparedQuery(LIST.text()).execute(LIST.params().set("id", taskId).set("tenant", tenantId).tuple())
        .map(rows -> {
          if (rows.rowCount() == 0) {
            return Optional.empty();
          }
          List<FinishedAttempt> out = new ArrayList<>();
          for (Row r : rows) {
            if (r.getInteger("attempt") != null) {
              out.add(new FinishedAttempt(r.getInteger("attempt"), r.getString("node_id"),
                  r.getString("executor_id"), r.getOffsetDateTime("started_at"), r.getOffsetDateTime("finished_at"),
                  r.getString("outcome"), r.getString("error")));
            }
          }
          return Optional.of(out);
        });
  }
}
