package ax.store;

import ax.delivery.ReadyTask;
import ax.dispatch.Completion;
import ax.store.ScheduleStore.Fence;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * SQL of handing processor tasks to remote executors (README.md, "Executor protocol"):
 * due DELAYED or READY → DISPATCHING (one executor, a new attempt) → RUNNING on its ack → an outcome from that same
 * executor for that same attempt. Every write is fenced twice: by the leader lease (a deposed leader
 * changes nothing) and by executor id + attempt (a late or foreign result changes nothing).
 *
 * <p>Row locks and deadlocks. An ack, a result batch and a release for overlapping tasks can run at
 * once. Every batch is sorted by task id and drives its statement through {@code unnest}, which locks
 * rows in id order while PostgreSQL joins it to the primary key — its usual plan — but not always:
 * when the statistics say few tasks are in flight (an ANALYZE between bursts), it hash-joins against
 * the small in-flight index instead (EXPLAIN shows it), and then nothing guarantees the array's order
 * (with the sides swapped, rows come in that index's order). So the write that overlaps
 * result writes most, the ack, never waits at all ({@link #ACK}); the rest overlap only on repeats
 * (a re-sent result batch) or misbehaving executors, and should two of them deadlock PostgreSQL aborts
 * one after {@code deadlock_timeout} and its caller's failure path covers it (tasks stay READY, results
 * are re-sent, recovery rescues the rest). An earlier version locked every batch first with a separate
 * {@code SELECT … ORDER BY task_id FOR UPDATE} pass, which is plan-proof but costs a second lock, WAL
 * record and dirty page per row, about a fifth of the result write (README "Performance").
 *
 * <p>A DISPATCHING task's deadline is the ack timeout <em>plus</em> its run timeout: if the leader dies
 * after the executor acked but before RUNNING was written, the executor is running it, and the
 * successor must not re-dispatch it before it could possibly have finished. Results are accepted from
 * DISPATCHING for the same reason.
 */
public final class ExecutionStore {
  private static final String LEASE = """
      WITH lease AS (
        SELECT epoch FROM leases
         WHERE name = $1 AND holder = $2 AND epoch = $3 AND expires_at > now()
         FOR SHARE
      )""";

  private static final String DISPATCH = LEASE + """
      UPDATE tasks t SET
        status         = 'DISPATCHING',
        attempt        = t.attempt + 1,
        epoch          = lease.epoch,
        executor_id    = $5,
        last_run_node  = $6,
        lease_deadline = now() + ($7 + t.timeout_ms) * interval '1 millisecond',
        updated_at     = now()
        FROM lease, unnest($4::bigint[]) AS v(task_id)
       WHERE t.task_id = v.task_id AND t.status IN ('READY','DELAYED') AND t.trigger_time <= now()
         AND t.processor IS NOT NULL AND (t.shard_total = 1 OR t.parent_id IS NOT NULL)
      RETURNING t.task_id, t.attempt""";

  /**
   * RUNNING is informative (the DISPATCHING deadline already covers ack + run), so the ack write never
   * waits for a row: one a result write holds is finishing anyway and is skipped. Waiting here deadlocked
   * with result writes about once per benchmark run (the plans differ, see the class comment).
   */
  private static final String ACK = LEASE + """
      , locked AS MATERIALIZED (
        SELECT task_id FROM tasks WHERE task_id = ANY($4) ORDER BY task_id FOR UPDATE SKIP LOCKED
      )
      UPDATE tasks t SET
        status         = 'RUNNING',
        started_at     = now(),
        lease_deadline = now() + t.timeout_ms * interval '1 millisecond',
        updated_at     = now()
        FROM lease, locked, unnest($4::bigint[], $5::int[]) AS v(task_id, attempt)
       WHERE t.task_id = locked.task_id AND t.task_id = v.task_id AND t.attempt = v.attempt
         AND t.status = 'DISPATCHING' AND t.executor_id = $6""";

  private static final String RELEASE = LEASE + """
      UPDATE tasks t SET
        status         = 'READY',
        executor_id    = NULL,
        lease_deadline = NULL,
        updated_at     = now()
        FROM lease, unnest($4::bigint[], $5::int[]) AS v(task_id, attempt)
       WHERE t.task_id = v.task_id AND t.attempt = v.attempt
         AND t.status = 'DISPATCHING' AND t.executor_id = $6
      RETURNING t.task_id""";

  private static final String COMPLETE = LEASE + """
      , """ + CompletionColumns.unnestAsV(4) + """
      , done AS (
        UPDATE tasks t SET
          started_at     = coalesce(t.started_at, now()), -- no RUNNING write when the result came first
      """ + CompletionColumns.SET_OUTCOME + """
          FROM v, lease
         WHERE t.task_id = v.task_id AND t.attempt = v.attempt AND t.executor_id = $12
           AND t.status IN ('DISPATCHING','RUNNING')
        RETURNING t.task_id, t.attempt, t.status, t.trigger_time, t.priority, t.last_run_node, t.started_at,
                  t.result::text AS result, v.outcome, v.error, t.parent_id
      ), logged AS (
        INSERT INTO task_attempts (task_id, attempt, node_id, executor_id, started_at, finished_at, outcome, error)
        SELECT task_id, attempt, coalesce(last_run_node, ''), $12, started_at, now(), outcome, error FROM done
        ON CONFLICT (task_id, attempt) DO NOTHING
      )
      SELECT task_id, status, trigger_time, priority, result, error, parent_id FROM done""";

  /**
   * Brings sharded parents up to date with their shards: FAILED as soon as one shard failed for good,
   * SUCCESS (results in shard order) when all succeeded, otherwise RUNNING (its deadline is its shards').
   */
  private static final String SETTLE_PARENTS = """
      WITH agg AS (
        SELECT parent_id, count(*) AS total,
               count(*) FILTER (WHERE status = 'SUCCESS') AS ok,
               count(*) FILTER (WHERE status IN ('FAILED','CANCELLED','SKIPPED')) AS bad
          FROM tasks WHERE parent_id = ANY($1) GROUP BY parent_id
      )
      UPDATE tasks p SET
        status         = CASE WHEN agg.bad > 0 THEN 'FAILED' WHEN agg.ok = agg.total THEN 'SUCCESS' ELSE 'RUNNING' END,
        error          = CASE WHEN agg.bad > 0 THEN agg.bad || ' of ' || agg.total || ' shards failed' END,
        result         = CASE WHEN agg.bad = 0 AND agg.ok = agg.total
                              THEN (SELECT jsonb_agg(c.result ORDER BY c.shard_index) FROM tasks c
                                     WHERE c.parent_id = p.task_id) END,
        started_at     = coalesce(p.started_at, now()),
        finished_at    = CASE WHEN agg.bad > 0 OR agg.ok = agg.total THEN now() END,
        lease_deadline = CASE WHEN agg.bad > 0 OR agg.ok = agg.total THEN NULL ELSE timestamptz 'infinity' END,
        updated_at     = now()
        FROM agg
       WHERE p.task_id = agg.parent_id AND p.status IN ('DELAYED','READY','RUNNING')
      RETURNING p.task_id, p.status, p.trigger_time, p.priority, p.result::text AS result, p.error""";

  /**
   * Sharded parents whose shards may all be settled without a result having triggered it (a shard
   * failed by the recovery scan's timeout). Two index-friendly halves: RUNNING parents carry the
   * 'infinity' deadline (in-flight index), DELAYED ones are due (trigger index).
   */
  private static final String STALE_PARENTS = """
      SELECT task_id FROM tasks
       WHERE status = 'RUNNING' AND lease_deadline = 'infinity' AND parent_id IS NULL AND shard_total > 1
      UNION ALL
      SELECT task_id FROM tasks
       WHERE status = 'DELAYED' AND trigger_time <= now() - interval '5 seconds'
         AND parent_id IS NULL AND shard_total > 1
       LIMIT 1000""";

  /** What a result needs that only the database knows when another leader dispatched the task. */
  private static final String RETRY_STATE = """
      SELECT task_id, attempt, retry_count, max_retry FROM tasks
       WHERE task_id = ANY($1) AND executor_id = $2 AND status IN ('DISPATCHING','RUNNING')""";

  private static final String HELD_BY = """
      SELECT task_id, attempt, retry_count, max_retry FROM tasks
       WHERE status IN ('DISPATCHING','RUNNING') AND executor_id = $1
       LIMIT $2""";

  /**
   * Tasks waiting for an executor: READY ones (released by an executor, or rescued) and due DELAYED
   * ones the claim read but the dispatch could not hold (memory cap). Two index-friendly halves.
   */
  private static final String LOAD_READY = """
      (SELECT task_id, task_type, processor, priority, trigger_time, timeout_ms, payload::text AS payload,
              retry_count, max_retry, shard_total, shard_index
         FROM tasks
        WHERE status = 'READY' AND processor = ANY($2) AND (shard_total = 1 OR parent_id IS NOT NULL)
        ORDER BY priority DESC, trigger_time, task_id
        LIMIT $1)
      UNION ALL
      (SELECT task_id, task_type, processor, priority, trigger_time, timeout_ms, payload::text AS payload,
              retry_count, max_retry, shard_total, shard_index
         FROM tasks
        WHERE status = 'DELAYED' AND trigger_time <= now() AND trigger_time >= now() - interval '1 day'
          AND processor = ANY($2) AND (shard_total = 1 OR parent_id IS NOT NULL)
        ORDER BY trigger_time
        LIMIT $1)""";

  private final Pool pool;

  public ExecutionStore(Pool pool) {
    this.pool = pool;
  }

  private static Tuple fenced(Fence f) {
    return Tuple.of(f.leaseName(), f.holder(), f.epoch());
  }

  /** A task now DISPATCHING to an executor, with the attempt the executor must report. */
  public record Dispatched(long taskId, int attempt) {
  }

  public Future<List<Dispatched>> dispatch(long[] taskIds, String executorId, long ackTimeoutMs, Fence fence) {
    long[] sorted = taskIds.clone();
    Arrays.sort(sorted);
    Tuple p = fenced(fence).addValue(SqlArrays.boxed(sorted)).addValue(executorId).addValue(fence.nodeId()).addValue(ackTimeoutMs);
    return pool.preparedQuery(DISPATCH).execute(p).map(rows -> {
      List<Dispatched> out = new ArrayList<>(rows.rowCount());
      for (Row r : rows) {
        out.add(new Dispatched(r.getLong("task_id"), r.getInteger("attempt")));
      }
      return out;
    });
  }

  /** The executor took these into its buffer: RUNNING, with the run deadline starting now. */
  public Future<Integer> acked(List<Dispatched> tasks, String executorId, Fence fence) {
    return pool.preparedQuery(ACK).execute(pairs(fence, tasks, executorId)).map(RowSet::rowCount);
  }

  /** Rejected or unanswered: back to READY; returns the ids that were released. */
  public Future<List<Long>> release(List<Dispatched> tasks, String executorId, Fence fence) {
    return pool.preparedQuery(RELEASE).execute(pairs(fence, tasks, executorId)).map(rows -> {
      List<Long> out = new ArrayList<>(rows.rowCount());
      rows.forEach(r -> out.add(r.getLong("task_id")));
      return out;
    });
  }

  /** An outcome applied: the task's new status, and (SUCCESS) the stored result. */
  public record Settled(long taskId, String status, long triggerTimeMs, int priority, String resultJson, String error,
                        Long parentId) {
  }

  public Future<List<Settled>> complete(List<Completion> batch, String executorId, Fence fence) {
    Tuple p = CompletionColumns.appendTo(fenced(fence), byTaskId(batch)).addValue(executorId);
    return pool.preparedQuery(COMPLETE).execute(p).map(rows -> {
      List<Settled> out = new ArrayList<>(rows.rowCount());
      for (Row r : rows) {
        out.add(new Settled(r.getLong("task_id"), r.getString("status"),
            Times.toMillis(r.getOffsetDateTime("trigger_time")), r.getShort("priority"), r.getString("result"),
            r.getString("error"), r.getLong("parent_id")));
      }
      return out;
    });
  }

  /** Updates the parents of settled shards; answers the parents that reached a terminal status. */
  public Future<List<Settled>> settleParents(List<Long> parentIds) {
    if (parentIds.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    return pool.preparedQuery(SETTLE_PARENTS).execute(Tuple.of((Object) parentIds.toArray(new Long[0]))).map(rows -> {
      List<Settled> out = new ArrayList<>();
      for (Row r : rows) {
        String status = r.getString("status");
        if ("SUCCESS".equals(status) || "FAILED".equals(status)) {
          out.add(new Settled(r.getLong("task_id"), status, Times.toMillis(r.getOffsetDateTime("trigger_time")),
              r.getShort("priority"), r.getString("result"), r.getString("error"), null));
        }
      }
      return out;
    });
  }

  public Future<List<Long>> staleParents() {
    return pool.query(STALE_PARENTS).execute().map(rows -> {
      List<Long> out = new ArrayList<>(rows.rowCount());
      rows.forEach(r -> out.add(r.getLong("task_id")));
      return out;
    });
  }

  /** Retry state of the given tasks, where the executor still holds them. */
  public Future<List<AttemptBudget>> retryState(long[] taskIds, String executorId) {
    return pool.preparedQuery(RETRY_STATE).execute(Tuple.of(SqlArrays.boxed(taskIds), executorId)).map(AttemptBudget::from);
  }

  /** Everything the executor holds (it was declared OFFLINE: these go through the retry policy). */
  public Future<List<AttemptBudget>> heldBy(String executorId, int limit) {
    return pool.preparedQuery(HELD_BY).execute(Tuple.of(executorId, limit)).map(AttemptBudget::from);
  }

  /** READY tasks of the given processors, highest priority and oldest first. */
  public Future<List<ReadyTask>> loadReady(int limit, java.util.Collection<String> processors) {
    return pool.preparedQuery(LOAD_READY).execute(Tuple.of(limit, (Object) processors.toArray(new String[0]))).map(rows -> {
      List<ReadyTask> out = new ArrayList<>(rows.rowCount());
      for (Row r : rows) {
        out.add(new ReadyTask(r.getLong("task_id"), r.getString("task_type"), r.getString("processor"),
            r.getShort("priority"), Times.toMillis(r.getOffsetDateTime("trigger_time")), r.getInteger("timeout_ms"),
            r.getString("payload"), r.getShort("retry_count"), r.getShort("max_retry"), r.getInteger("shard_total"),
            r.getInteger("shard_index")));
      }
      return out;
    });
  }

  private static List<Completion> byTaskId(List<Completion> batch) {
    List<Completion> sorted = new ArrayList<>(batch);
    sorted.sort(Comparator.comparingLong(Completion::taskId));
    return sorted;
  }

  private static Tuple pairs(Fence fence, List<Dispatched> unsorted, String executorId) {
    List<Dispatched> tasks = new ArrayList<>(unsorted);
    tasks.sort(Comparator.comparingLong(Dispatched::taskId));
    Long[] ids = new Long[tasks.size()];
    Integer[] attempts = new Integer[tasks.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = tasks.get(i).taskId();
      attempts[i] = tasks.get(i).attempt();
    }
    return fenced(fence).addValue(ids).addValue(attempts).addValue(executorId);
  }
}
