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
                         max_retry, timeout_ms, callback_url, processor, payload, biz_key, shard_total)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::text::jsonb, $13, $14)
      ON CONFLICT (tenant_id, task_type, biz_key) WHERE biz_key IS NOT NULL DO NOTHING
      RETURNING\s""" + COLUMNS;

  /**
   * Many unsharded tasks in one statement (the batch endpoint): one round trip instead of one per
   * task. Rows a biz_key conflict skipped are not returned; the caller answers them as duplicates.
   */
  private static final String INSERT_MANY = """
      INSERT INTO tasks (task_id, tenant_id, api_key, task_type, trigger_time, status, priority,
                         max_retry, timeout_ms, callback_url, processor, payload, biz_key, shard_total)
      SELECT id, tenant, akey, ttype, trig, st, prio, mretry, tmo, cb, proc, pl::jsonb, bk, 1
        FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[],
                    $7::smallint[], $8::smallint[], $9::int[], $10::text[], $11::text[], $12::text[], $13::text[])
             AS u(id, tenant, akey, ttype, trig, st, prio, mretry, tmo, cb, proc, pl, bk)
      ON CONFLICT (tenant_id, task_type, biz_key) WHERE biz_key IS NOT NULL DO NOTHING
      RETURNING\s""" + COLUMNS;

  /** The shards of a just-inserted parent: copies of it with parent_id and shard_index 0..N-1. */
  private static final String INSERT_SHARDS = """
      INSERT INTO tasks (task_id, tenant_id, api_key, task_type, trigger_time, status, priority, max_retry,
                         timeout_ms, processor, payload, shard_total, parent_id, shard_index)
      SELECT c.id, p.tenant_id, p.api_key, p.task_type, p.trigger_time, p.status, p.priority, p.max_retry,
             p.timeout_ms, p.processor, p.payload, p.shard_total, p.task_id, (c.ord - 1)::int
        FROM tasks p, unnest($2::bigint[]) WITH ORDINALITY AS c(id, ord)
       WHERE p.task_id = $1""";

  private static final String FIND_BY_BIZ_KEY =
      "SELECT " + COLUMNS + " FROM tasks WHERE tenant_id = $1 AND task_type = $2 AND biz_key = $3";

  private static final String FIND = "SELECT " + COLUMNS + " FROM tasks WHERE task_id = $1 AND tenant_id = $2";

  /**
   * The sync endpoint's deadline: whatever has not finished is FAILED now. An executor still running
   * it will have its result refused (the task is no longer DISPATCHING/RUNNING).
   */
  private static final String FAIL_UNFINISHED = """
      WITH failed AS (
        UPDATE tasks SET status = 'FAILED', error = $3, lease_deadline = NULL, finished_at = now(), updated_at = now()
         WHERE task_id = $1 AND tenant_id = $2 AND status NOT IN ('SUCCESS','FAILED','CANCELLED','SKIPPED')
        RETURNING task_id, status, result, error
      )
      SELECT task_id, status, result::text AS result, error FROM failed
      UNION ALL
      SELECT task_id, status, result::text, error FROM tasks
       WHERE task_id = $1 AND tenant_id = $2 AND NOT EXISTS (SELECT 1 FROM failed)""";

  /** Cancelling a sharded parent cancels its shards that have not started either. */
  private static final String CANCEL = """
      WITH parent AS (
        UPDATE tasks SET status = 'CANCELLED', finished_at = now(), updated_at = now()
         WHERE task_id = $1 AND tenant_id = $2 AND status = ANY($3)
        RETURNING task_id
      ), shards AS (
        UPDATE tasks SET status = 'CANCELLED', finished_at = now(), updated_at = now()
         WHERE parent_id IN (SELECT task_id FROM parent) AND status = ANY($3)
      )
      SELECT task_id FROM parent""";

  /** Newest first; the cursor is the last task id of the previous page. */
  private static final String LIST = "SELECT " + COLUMNS + """
       FROM tasks
      WHERE tenant_id = $1 AND parent_id IS NULL
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
  public record Inserted(TaskRecord task, boolean duplicate, long[] shardIds) {
    public Inserted(TaskRecord task, boolean duplicate) {
      this(task, duplicate, new long[0]);
    }
  }

  /** Inserts and commits (autocommit) before the future completes, so a 201 is never ahead of the row. */
  public Future<Inserted> insert(NewTask t) {
    return insert(t, new long[0]);
  }

  /**
   * Inserts a task and, when it is sharded, its {@code childIds.length == shardTotal} shard rows in the
   * same transaction. A biz_key repeat inserts nothing and answers the existing task.
   */
  public Future<Inserted> insert(NewTask t, long[] childIds) {
    Tuple params = Tuple.tuple()
        .addLong(t.taskId()).addString(t.tenantId()).addString(t.apiKey()).addString(t.taskType())
        .addOffsetDateTime(Times.toTimestamp(t.triggerTimeMs())).addString(t.status().name())
        .addShort((short) t.priority()).addShort((short) t.maxRetry()).addInteger(t.timeoutMs())
        .addString(t.callbackUrl()).addString(t.processor()).addString(t.payloadJson())
        .addString(t.bizKey()).addInteger(t.shardTotal());
    if (childIds.length > 0) {
      // The parent and its shards commit together: a parent without all its shards would never finish.
      return pool.withTransaction(conn -> conn.preparedQuery(INSERT).execute(params).compose(rows -> {
        if (rows.rowCount() != 1) {
          return Future.succeededFuture(rows);
        }
        Long[] ids = new Long[childIds.length];
        for (int i = 0; i < ids.length; i++) {
          ids[i] = childIds[i];
        }
        return conn.preparedQuery(INSERT_SHARDS).execute(Tuple.of(t.taskId(), (Object) ids)).map(rows);
      })).compose(rows -> inserted(t, rows))
          .map(ins -> ins.duplicate() ? ins : new Inserted(ins.task(), false, childIds));
    }
    return pool.preparedQuery(INSERT).execute(params).compose(rows -> inserted(t, rows));
  }

  private Future<Inserted> inserted(NewTask t, RowSet<Row> rows) {
    if (rows.rowCount() == 1) {
      return Future.succeededFuture(new Inserted(toRecord(rows.iterator().next()), false));
    }
    // Lost the biz_key race (or a repeat): the existing task is the answer.
    return existing(t);
  }

  /** Inserts unsharded tasks in one statement; the answers are in the order of {@code batch}. */
  public Future<List<Inserted>> insertMany(List<NewTask> batch) {
    int n = batch.size();
    Long[] ids = new Long[n];
    String[] tenants = new String[n];
    String[] keys = new String[n];
    String[] types = new String[n];
    java.time.OffsetDateTime[] triggers = new java.time.OffsetDateTime[n];
    String[] statuses = new String[n];
    Short[] priorities = new Short[n];
    Short[] maxRetries = new Short[n];
    Integer[] timeouts = new Integer[n];
    String[] callbacks = new String[n];
    String[] processors = new String[n];
    String[] payloads = new String[n];
    String[] bizKeys = new String[n];
    for (int i = 0; i < n; i++) {
      NewTask t = batch.get(i);
      if (t.shardTotal() != 1) {
        throw new IllegalArgumentException("insertMany takes unsharded tasks only");
      }
      ids[i] = t.taskId();
      tenants[i] = t.tenantId();
      keys[i] = t.apiKey();
      types[i] = t.taskType();
      triggers[i] = Times.toTimestamp(t.triggerTimeMs());
      statuses[i] = t.status().name();
      priorities[i] = (short) t.priority();
      maxRetries[i] = (short) t.maxRetry();
      timeouts[i] = t.timeoutMs();
      callbacks[i] = t.callbackUrl();
      processors[i] = t.processor();
      payloads[i] = t.payloadJson();
      bizKeys[i] = t.bizKey();
    }
    Tuple params = Tuple.tuple().addValue(ids).addValue(tenants).addValue(keys).addValue(types).addValue(triggers)
        .addValue(statuses).addValue(priorities).addValue(maxRetries).addValue(timeouts).addValue(callbacks)
        .addValue(processors).addValue(payloads).addValue(bizKeys);
    return pool.preparedQuery(INSERT_MANY).execute(params).compose(rows -> {
      java.util.Map<Long, TaskRecord> inserted = new java.util.HashMap<>();
      rows.forEach(r -> {
        TaskRecord rec = toRecord(r);
        inserted.put(rec.taskId(), rec);
      });
      List<Future<Inserted>> out = new ArrayList<>(n);
      for (NewTask t : batch) {
        TaskRecord rec = inserted.get(t.taskId());
        out.add(rec != null ? Future.succeededFuture(new Inserted(rec, false)) : existing(t));
      }
      return Future.all(out).map(all -> {
        List<Inserted> list = new ArrayList<>(n);
        out.forEach(f -> list.add(f.result()));
        return list;
      });
    });
  }

  /** The task that holds {@code t}'s biz_key (its insert was skipped as a duplicate). */
  private Future<Inserted> existing(NewTask t) {
    return pool.preparedQuery(FIND_BY_BIZ_KEY)
        .execute(Tuple.of(t.tenantId(), t.taskType(), t.bizKey()))
        .map(found -> {
          if (found.rowCount() != 1) {
            throw new IllegalStateException("insert of task " + t.taskId()
                + " conflicted but no task holds biz_key " + t.bizKey());
          }
          return new Inserted(toRecord(found.iterator().next()), true);
        });
  }

  /** Fails the task unless it already finished; answers its final {task_id, status, result, error}. */
  public Future<io.vertx.core.json.JsonObject> failUnfinished(String tenantId, long taskId, String error) {
    return pool.preparedQuery(FAIL_UNFINISHED).execute(Tuple.of(taskId, tenantId, error)).map(rows -> {
      var r = rows.iterator().next();
      String result = r.getString("result");
      return new io.vertx.core.json.JsonObject().put("task_id", Long.toString(r.getLong("task_id")))
          .put("status", r.getString("status"))
          .put("result", result == null ? null : io.vertx.core.json.Json.decodeValue(result))
          .put("error", r.getString("error"));
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
