package ax.store;

import ax.task.NewTask;
import ax.task.TaskRecord;
import ax.task.TaskStateMachine;
import ax.task.TaskStatus;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The API's view of the tasks table: submit, read, list, cancel. Every read is scoped by tenant, so
 * another tenant's task is indistinguishable from a missing one. The scheduler's hot path lives in
 * {@link ScheduleStore}.
 */
public final class TaskStore {

  private static final String COLUMNS = """
      task_id, tenant_id, task_type, trigger_time, status, priority, max_retry, retry_count, attempt,
      timeout_ms, callback_url, processor, payload, biz_key, last_run_node, result, error,
      created_at, updated_at, started_at, finished_at""";

  private static final String INSERT = """
      INSERT INTO tasks (task_id, tenant_id, api_key, task_type, trigger_time, status, priority,
                         max_retry, timeout_ms, callback_url, processor, payload, biz_key)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::text::jsonb, $13)
      ON CONFLICT (tenant_id, task_type, biz_key) WHERE biz_key IS NOT NULL DO NOTHING
      RETURNING\s""" + COLUMNS;

  private static final String FIND_BY_BIZ_KEY =
      "SELECT " + COLUMNS + " FROM tasks WHERE tenant_id = $1 AND task_type = $2 AND biz_key = $3";

  private static final String FIND = "SELECT " + COLUMNS + " FROM tasks WHERE task_id = $1 AND tenant_id = $2";

  private static final String CANCEL = """
      UPDATE tasks SET status = 'CANCELLED', finished_at = now(), updated_at = now()
       WHERE task_id = $1 AND tenant_id = $2 AND status = ANY($3)
      RETURNING task_id""";

  /** Newest first; the cursor is the last task id of the previous page. */
  private static final String LIST = "SELECT " + COLUMNS + """
       FROM tasks
      WHERE tenant_id = $1
        AND ($2::text IS NULL OR status = $2)
        AND ($3::text IS NULL OR task_type = $3)
        AND task_id < $4
      ORDER BY task_id DESC
      LIMIT $5""";

  private final Pool pool;

  public TaskStore(Pool pool) {
    this.pool = pool;
  }

  /** Result of a submission: the stored task, and whether it already existed under the same biz_key. */
  public record Inserted(TaskRecord task, boolean duplicate) {
  }

  /** Inserts and commits (autocommit) before the future completes, so a 201 is never ahead of the row. */
  public Future<Inserted> insert(NewTask t) {
    Tuple params = Tuple.tuple()
        .addLong(t.taskId()).addString(t.tenantId()).addString(t.apiKey()).addString(t.taskType())
        .addOffsetDateTime(Times.toTimestamp(t.triggerTimeMs())).addString(t.status().name())
        .addShort((short) t.priority()).addShort((short) t.maxRetry()).addInteger(t.timeoutMs())
        .addString(t.callbackUrl()).addString(t.processor()).addString(t.payloadJson())
        .addString(t.bizKey());
    return pool.preparedQuery(INSERT).execute(params).compose(rows -> {
      if (rows.rowCount() == 1) {
        return Future.succeededFuture(new Inserted(toRecord(rows.iterator().next()), false));
      }
      // Lost the biz_key race (or a repeat): the existing task is the answer.
      return pool.preparedQuery(FIND_BY_BIZ_KEY)
          .execute(Tuple.of(t.tenantId(), t.taskType(), t.bizKey()))
          .map(existing -> {
            if (existing.rowCount() != 1) {
              throw new IllegalStateException("insert of task " + t.taskId()
                  + " conflicted but no task holds biz_key " + t.bizKey());
            }
            return new Inserted(toRecord(existing.iterator().next()), true);
          });
    });
  }

  public Future<Optional<TaskRecord>> find(String tenantId, long taskId) {
    return pool.preparedQuery(FIND).execute(Tuple.of(taskId, tenantId)).map(TaskStore::single);
  }

  /** Outcome of a cancel: CANCELLED now, or the current status that forbids it, or not found. */
  public record CancelOutcome(boolean cancelled, Optional<TaskStatus> currentStatus) {
  }

  public Future<CancelOutcome> cancel(String tenantId, long taskId) {
    String[] from = TaskStateMachine.sources(TaskStatus.CANCELLED).stream().map(Enum::name).toArray(String[]::new);
    return pool.preparedQuery(CANCEL).execute(Tuple.of(taskId, tenantId, from)).compose(rows -> {
      if (rows.rowCount() == 1) {
        return Future.succeededFuture(new CancelOutcome(true, Optional.of(TaskStatus.CANCELLED)));
      }
      if (rows.rowCount() > 1) {
        return Future.failedFuture(new IllegalStateException("cancel matched " + rows.rowCount() + " rows"));
      }
      return find(tenantId, taskId).map(t -> new CancelOutcome(false, t.map(TaskRecord::status)));
    });
  }

  public Future<List<TaskRecord>> list(String tenantId, TaskStatus status, String taskType, long beforeId, int limit) {
    Tuple params = Tuple.tuple().addString(tenantId).addString(status == null ? null : status.name())
        .addString(taskType).addLong(beforeId).addInteger(limit);
    return pool.preparedQuery(LIST).execute(params).map(rows -> {
      List<TaskRecord> out = new ArrayList<>(rows.rowCount());
      rows.forEach(r -> out.add(toRecord(r)));
      return out;
    });
  }

  private static Optional<TaskRecord> single(RowSet<Row> rows) {
    return rows.rowCount() == 0 ? Optional.empty() : Optional.of(toRecord(rows.iterator().next()));
  }

  static TaskRecord toRecord(Row r) {
    return new TaskRecord(
        r.getLong("task_id"), r.getString("tenant_id"), r.getString("task_type"),
        r.getOffsetDateTime("trigger_time"), TaskStatus.valueOf(r.getString("status")),
        r.getShort("priority"), r.getShort("max_retry"), r.getShort("retry_count"),
        r.getInteger("attempt"), r.getInteger("timeout_ms"), r.getString("callback_url"),
        r.getString("processor"), r.getValue("payload"), r.getString("biz_key"),
        r.getString("last_run_node"), r.getValue("result"), r.getString("error"),
        r.getOffsetDateTime("created_at"), r.getOffsetDateTime("updated_at"),
        r.getOffsetDateTime("started_at"), r.getOffsetDateTime("finished_at"));
  }
}
