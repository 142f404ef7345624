package ax.store;

import ax.delivery.ReadyTask;
import ax.dispatch.ClaimedTask;
import ax.dispatch.Completion;
import ax.wheel.ScheduledTask;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * The scheduler's hot path against the tasks table: load the coming window, claim due tasks in a
 * batch, write outcomes in a batch, and find what the recovery scan must repair. Every state change is
 * a guarded update; claims are additionally fenced by the leader lease (holder + epoch + not expired),
 * so a node that lost leadership claims nothing.
 *
 * <p>Due processor tasks are read by the claim and handed to the leader's executor dispatch
 * ({@link ExecutionStore}), which writes them DELAYED/READY → DISPATCHING; the loader leaves READY
 * processor tasks (released by an executor) to the dispatch's own top-up.
 */
public final class ScheduleStore {

  /** Walks the (trigger_time, status) index from the cursor; never a full scan. */
  private static final String LOAD_PENDING = """
      SELECT task_id, trigger_time, priority
        FROM tasks
       WHERE trigger_time >= $1 AND trigger_time <= $3
         AND (trigger_time > $1 OR task_id > $2)
         AND status IN ('DELAYED','READY')
         AND (status = 'DELAYED' OR callback_url IS NOT NULL)
         AND (shard_total = 1 OR parent_id IS NOT NULL)
       ORDER BY trigger_time, task_id
       LIMIT $4""";

  /**
   * Claims a batch in one round trip. HTTP targets go DELAYED/READY → DISPATCHING → RUNNING in one
   * write, because the in-process HTTP invoker acknowledges at once. Due processor tasks are only
   * <em>read</em> (same lease fence): the executor dispatch moves them DELAYED → DISPATCHING itself when
   * an executor has room, so a processor task costs one write less; while they wait for room they stay
   * DELAYED (due) in PostgreSQL. The lease row is share-locked so a takeover cannot commit between our
   * check and our claim.
   */
  private static final String CLAIM_DUE = """
      WITH lease AS (
        SELECT epoch FROM leases
         WHERE name = $2 AND holder = $3 AND epoch = $4 AND expires_at > now()
         FOR SHARE
      ), http AS (
        UPDATE tasks t SET
          status         = 'RUNNING',
          attempt        = t.attempt + 1,
          epoch          = lease.epoch,
          last_run_node  = $5,
          started_at     = now(),
          lease_deadline = now() + t.timeout_ms * interval '1 millisecond',
          updated_at     = now()
          FROM lease
         WHERE t.task_id = ANY($1)
           AND t.status IN ('DELAYED','READY')
           AND t.callback_url IS NOT NULL
           AND t.trigger_time <= now()
        RETURNING t.task_id, t.status, t.attempt, t.api_key, t.task_type, t.trigger_time, t.priority,
                  t.payload::text AS payload, t.callback_url, t.timeout_ms, t.retry_count, t.max_retry,
                  t.processor, t.shard_total, t.shard_index
      )
      SELECT * FROM http
      UNION ALL
      SELECT t.task_id, t.status, t.attempt, t.api_key, t.task_type, t.trigger_time, t.priority,
             t.payload::text AS payload, t.callback_url, t.timeout_ms, t.retry_count, t.max_retry,
             t.processor, t.shard_total, t.shard_index
        FROM tasks t, lease
       WHERE t.task_id = ANY($1)
         AND t.status IN ('DELAYED','READY')
         AND t.processor IS NOT NULL
         AND (t.shard_total = 1 OR t.parent_id IS NOT NULL)
         AND t.trigger_time <= now()""";

  /** Tasks of a fired batch that the claim skipped because the database says they are not due yet. */
  private static final String NOT_YET_DUE = """
      SELECT task_id, trigger_time, priority FROM tasks
       WHERE task_id = ANY($1) AND status = 'DELAYED' AND trigger_time > now()""";

  /**
   * Writes a batch of outcomes and their attempt-log rows in one statement. Applies only where the
   * task is still RUNNING in the same attempt (a late or duplicate result changes nothing) and only
   * while we hold the lease (a deposed leader completes nothing).
   */
  private static final String COMPLETE_RUNNING = """
      WITH lease AS (
        SELECT epoch FROM leases
         WHERE name = $9 AND holder = $10 AND epoch = $11 AND expires_at > now()
         FOR SHARE
      ), """ + CompletionColumns.unnestAsV(1) + """
      , done AS (
        UPDATE tasks t SET
      """ + CompletionColumns.SET_OUTCOME + """
          FROM v, lease
         WHERE t.task_id = v.task_id AND t.attempt = v.attempt AND t.status = 'RUNNING'
        RETURNING t.task_id, t.attempt, t.status, t.trigger_time, t.priority, t.last_run_node,
                  t.started_at, v.outcome, v.error
      ), logged AS (
        INSERT INTO task_attempts (task_id, attempt, node_id, started_at, finished_at, outcome, error)
        SELECT task_id, attempt, coalesce(last_run_node, ''), started_at, now(), outcome, error FROM done
        ON CONFLICT (task_id, attempt) DO NOTHING
      )
      SELECT task_id, status, trigger_time, priority FROM done""";

  /** DISPATCHING past its deadline goes back to READY for another round (a new attempt). */
  private static final String RESCUE_UNACKED = """
      UPDATE tasks SET status = 'READY', executor_id = NULL, lease_deadline = NULL, updated_at = now()
       WHERE status = 'DISPATCHING' AND lease_deadline < now()
      RETURNING task_id, trigger_time, priority""";

  /** RUNNING past its run deadline (+ grace, so the owner's own timeout wins when it is alive). */
  private static final String OVERDUE_RUNNING = """
      SELECT task_id, attempt, retry_count, max_retry FROM tasks
       WHERE status = 'RUNNING' AND lease_deadline < now() - $1 * interval '1 millisecond'
       ORDER BY lease_deadline
       LIMIT $2""";

  /** Due tasks still waiting (DELAYED, or READY HTTP targets) within the lookback window. */
  private static final String OVERDUE_PENDING = """
      SELECT task_id, trigger_time, priority FROM tasks
       WHERE trigger_time >= now() - $1 * interval '1 millisecond'
         AND trigger_time <= now() - $2 * interval '1 millisecond'
         AND status IN ('DELAYED','READY')
         AND (status = 'DELAYED' OR callback_url IS NOT NULL)
         AND (shard_total = 1 OR parent_id IS NOT NULL)
       ORDER BY trigger_time
       LIMIT $3""";

  private final Pool pool;

  public ScheduleStore(Pool pool) {
    this.pool = pool;
  }

  public Future<List<ScheduledTask>> loadPending(long afterTimeMs, long afterTaskId, long horizonMs, int limit) {
    Tuple params = Tuple.of(Times.toTimestamp(afterTimeMs), afterTaskId, Times.toTimestamp(horizonMs), limit);
    return pool.preparedQuery(LOAD_PENDING).execute(params).map(ScheduleStore::toScheduled);
  }

  /** Lease fencing parameters every claim carries. */
  public record Fence(String leaseName, String holder, long epoch, String nodeId) {
  }

  /** What a claim took: HTTP targets to call now, and processor tasks now READY for executors. */
  public record Claimed(List<ClaimedTask> http, List<ReadyTask> ready) {
    public int size() {
      return http.size() + ready.size();
    }
  }

  public Future<Claimed> claimDue(long[] taskIds, Fence fence) {
    Tuple params = Tuple.of(SqlArrays.boxed(taskIds), fence.leaseName(), fence.holder(), fence.epoch(), fence.nodeId());
    return pool.preparedQuery(CLAIM_DUE).execute(params).map(rows -> {
      List<ClaimedTask> out = new ArrayList<>(rows.rowCount());
      List<ReadyTask> ready = new ArrayList<>();
      for (Row r : rows) {
        if (r.getString("processor") != null) {
          ready.add(new ReadyTask(r.getLong("task_id"), r.getString("task_type"), r.getString("processor"),
              r.getShort("priority"), Times.toMillis(r.getOffsetDateTime("trigger_time")), r.getInteger("timeout_ms"),
              r.getString("payload"), r.getShort("retry_count"), r.getShort("max_retry"), r.getInteger("shard_total"),
              r.getInteger("shard_index")));
          continue;
        }
        out.add(new ClaimedTask(r.getLong("task_id"), r.getInteger("attempt"), r.getString("api_key"),
            r.getString("task_type"), Times.toMillis(r.getOffsetDateTime("trigger_time")),
            r.getShort("priority"), r.getString("payload"), r.getString("callback_url"),
            r.getInteger("timeout_ms"), r.getShort("retry_count"), r.getShort("max_retry")));
      }
      return new Claimed(out, ready);
    });
  }

  public Future<List<ScheduledTask>> notYetDue(long[] taskIds) {
    return pool.preparedQuery(NOT_YET_DUE).execute(Tuple.of((Object) SqlArrays.boxed(taskIds))).map(ScheduleStore::toScheduled);
  }

  /** Returns the tasks whose outcome was applied, with their new status and trigger time. */
  public record Applied(long taskId, String status, long triggerTimeMs, int priority) {
    /** The applied outcomes that scheduled a retry, as wheel entries. */
    public static List<ScheduledTask> retries(List<Applied> applied) {
      List<ScheduledTask> out = new ArrayList<>();
      for (Applied a : applied) {
        if ("DELAYED".equals(a.status())) {
          out.add(new ScheduledTask(a.taskId(), a.triggerTimeMs(), a.priority()));
        }
      }
      return out;
    }
  }

  public Future<List<Applied>> completeRunning(List<Completion> batch, Fence fence) {
    Tuple params = CompletionColumns.appendTo(Tuple.tuple(), batch)
        .addValue(fence.leaseName()).addValue(fence.holder()).addValue(fence.epoch());
    return pool.preparedQuery(COMPLETE_RUNNING).execute(params).map(rows -> {
      List<Applied> out = new ArrayList<>(rows.rowCount());
      for (Row r : rows) {
        out.add(new Applied(r.getLong("task_id"), r.getString("status"),
            Times.toMillis(r.getOffsetDateTime("trigger_time")), r.getShort("priority")));
      }
      return out;
    });
  }

  public Future<List<ScheduledTask>> rescueUnacked() {
    return pool.query(RESCUE_UNACKED).execute().map(ScheduleStore::toScheduled);
  }

  /** RUNNING tasks whose deadline passed; the caller applies the retry policy. */
  public Future<List<AttemptBudget>> overdueRunning(long graceMs, int limit) {
    return pool.preparedQuery(OVERDUE_RUNNING).execute(Tuple.of(graceMs, limit)).map(AttemptBudget::from);
  }

  public Future<List<ScheduledTask>> overduePending(long lookbackMs, long graceMs, int limit) {
    return pool.preparedQuery(OVERDUE_PENDING).execute(Tuple.of(lookbackMs, graceMs, limit))
        .map(ScheduleStore::toScheduled);
  }

  private static List<ScheduledTask> toScheduled(Iterable<Row> rows) {
    List<ScheduledTask> out = new ArrayList<>();
    for (Row r : rows) {
      OffsetDateTime t = r.getOffsetDateTime("trigger_time");
      out.add(new ScheduledTask(r.getLong("task_id"), Times.toMillis(t), r.getShort("priority")));
    }
    return out;
  }
}
