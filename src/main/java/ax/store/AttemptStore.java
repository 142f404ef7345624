package ax.store;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads the attempt log (rows are written by {@link ScheduleStore#completeRunning}). */
public final class AttemptStore {

  /** Tenant-scoped through the task: empty when the task is not the tenant's. */
  private static final String LIST = """
      SELECT t.task_id, a.attempt, a.node_id, a.executor_id, a.started_at, a.finished_at, a.outcome, a.error
        FROM tasks t LEFT JOIN task_attempts a ON a.task_id = t.task_id
       WHERE t.task_id = $1 AND t.tenant_id = $2
       ORDER BY a.attempt""";

  private final Pool pool;

  public AttemptStore(Pool pool) {
    this.pool = pool;
  }

  public Future<Optional<List<JsonObject>>> list(String tenantId, long taskId) {
    return pool.preparedQuery(LIST).execute(Tuple.of(taskId, tenantId)).map(rows -> {
      if (rows.rowCount() == 0) {
        return Optional.empty();
      }
      List<JsonObject> out = new ArrayList<>();
      for (Row r : rows) {
        if (r.getInteger("attempt") == null) {
          continue; // the task exists but has no finished attempt yet
        }
        out.add(new JsonObject()
            .put("attempt", r.getInteger("attempt"))
            .put("node_id", r.getString("node_id"))
            .put("executor_id", r.getString("executor_id"))
            .put("started_at", String.valueOf(r.getOffsetDateTime("started_at")))
            .put("finished_at", r.getOffsetDateTime("finished_at").toString())
            .put("outcome", r.getString("outcome"))
            .put("error", r.getString("error")));
      }
      return Optional.of(out);
    });
  }
}
