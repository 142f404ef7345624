package ax.store;

import ax.leader.Fence;
import ax.task.Attempt;
import ax.task.AttemptBudget;
import ax.task.Completion;
import ax.task.ReadyTask;
import ax.task.Settled;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

import static ax.task.TaskStatus.CANCELLED;
import static ax.task.TaskStatus.DELAYED;
import static ax.task.TaskStatus.DISPATCHING;
import static ax.task.TaskStatus.FAILED;
import static ax.task.TaskStatus.READY;
import static ax.task.TaskStatus.RUNNING;
import static ax.task.TaskStatus.SKIPPED;

/**
 * SQL of handing processor tasks to remote executors (docs/executor-protocol.md): due DELAYED or READY →
 * DISPATCHING (one executor, a new attempt) → RUNNING on its ack → an outcome from that same executor for
 * that same attempt. Every write is fenced twice: by the leader's term (a deposed leader changes nothing)
 * and by executor id + attempt (a late or foreign result changes nothing).
 *
 * <p>Row locks and deadlocks. An ack, a result batch and a release for overlapping tasks can run at
 * once. Every batch is sorted by task id and drives its statement through {@code unnest}, which locks
 * rows in id order while PostgreSQL joins it to the primary key — its usual plan — but not always:
 * when the statistics say few tasks are in flight (an ANALYZE between bursts), it hash-joins against
 * the small in-flight index instead (EXPLAIN shows it), and then nothing guarantees the array's order.
 * So the write that overlaps result writes most, the ack, never waits at all ({@link #ACK}); the rest
 * overlap only on repeats (a re-sent result batch) or misbehaving executors, and should two of them
 * deadlock PostgreSQL aborts one after {@code deadlock_timeout} and its caller's failure path covers it
 * (tasks stay READY, results are re-sent, recovery rescues the rest). Locking every batch first with a
 * separate {@code SELECT … ORDER BY task_id FOR UPDATE} pass is plan-proof but costs a second lock, WAL
 * record and dirty page per row, about a fifth of the result write (bench/README.md, "History").
 *
 * <p>A DISPATCHING task's deadline is the ack timeout <em>plus</em> its run timeout: if the leader dies
 * after the executor acked but before RUNNING was written, the executor is running it, and the
 * successor must not re-dispatch it before it could possibly have finished. Results are accepted from
 * DISPATCHING for the same reason.
 */
public final class ExecutionStore {

  /**
   * Tasks due within {@code :lead_ms} (claimed ahead, pushed at their trigger time) become DISPATCHING;
   * their deadline counts from the trigger time, like a call claimed ahead.
   */
  static final Sql DISPATCH = Sql.of("""
      WITH %s
      UPDATE tasks t SET
        status         = 'DISPATCHING',
        attempt        = t.attempt + 1,
        epoch          = lease.epoch,
        executor_id    = :executor,
        last_run_node  = :node,
        started_at     = NULL, -- set by the ack (RUNNING) or the result; never the previous attempt's
        lease_deadline = greatest(now(), t.next_trigger_time)
                         + (:ack_timeout_ms + t.timeout_ms) * interval '1 millisecond',
        updated_at     = now()
        FROM lease, unnest(:ids::bigint[]) AS v(task_id)
       WHERE t.task_id = v.task_id AND t.status IN %s AND %s
         AND t.processor IS NOT NULL AND %s
      RETURNING t.task_id, t.attempt""".formatted(Sql.LEASE, Sql.in(READY, DELAYED),
      Sql.dueBy("now() + :lead_ms * interval '1 millisecond'"), Sql.RUNS_ITSELF));

  /**
   * RUNNING is informative (the DISPATCHING deadline already covers ack + run), so the ack write never
   * waits for a row: one a result write holds is finishing anyway and is skipped. Waiting here deadlocked
   * with result writes under a burst (the two statements lock rows in different orders, see the class
   * comment).
   */
  private static final Sql ACK = Sql.of("""
      WITH %s, locked AS MATERIALIZED (
        SELECT task_id FROM tasks WHERE task_id = ANY(:ids) ORDER BY task_id FOR UPDATE SKIP LOCKED
      )
      UPDATE tasks t SET
        status         = 'RUNNING',
        started_at     = now(),
        lease_deadline = now() + t.timeout_ms * interval '1 millisecond',
        updated_at     = now()
        FROM lease, locked, unnest(:ids::bigint[], :attempts::int[]) AS v(task_id, attempt)
       WHERE t.task_id = locked.task_id AND t.task_id = v.task_id AND t.attempt = v.attempt
         AND t.status = 'DISPATCHING' AND t.executor_id = :executor""".formatted(Sql.LEASE));

  private static final Sql RELEASE = Sql.of("""
      WITH %s
      UPDATE tasks t SET
        status         = 'READY',
        executor_id    = NULL,
        lease_deadline = NULL,
        updated_at     = now()
        FROM lease, unnest(:ids::bigint[], :attempts::int[]) AS v(task_id, attempt)
       WHERE t.task_id = v.task_id AND t.attempt = v.attempt
         AND t.status = 'DISPATCHING' AND t.executor_id = :executor
      RETURNING t.task_id""".formatted(Sql.LEASE));

  private static final Sql COMPLETE = Sql.of("""
      WITH %s, %s
      , done AS (
        UPDATE tasks t SET
          started_at     = coalesce(t.started_at, now()), -- no RUNNING write when the result came first
      %s
          FROM v, lease
         WHERE t.task_id = v.task_id AND t.attempt = v.attempt AND t.executor_id = :executor
           AND t.status IN %s
        RETURNING t.task_id, t.attempt, t.status, t.next_trigger_time, t.priority, t.last_run_node, t.started_at,
                  t.result::text AS result, v.outcome, v.error, t.parent_id
      ), logged AS (
        INSERT INTO task_attempts (task_id, attempt, node_id, executor_id, started_at, finished_at, outcome, error)
        SELECT task_id, attempt, coalesce(last_run_node, ''), :executor, started_at, now(), outcome, error FROM done
        ON CONFLICT (task_id, attempt) DO NOTHING
      )
      -- one row even when nothing was written, saying whether the term was still current: an executor told
      -- "refused" drops its result, so a deposed leader must answer "send again" instead (FencedOut)
      SELECT f.fenced_in, d.task_id, d.status, d.next_trigger_time, d.priority, d.result, d.error, d.parent_id
        FROM (SELECT count(*) > 0 AS fenced_in FROM lease) f LEFT JOIN done d ON true"""
      .formatted(Sql.LEASE, CompletionColumns.V, CompletionColumns.SET_OUTCOME, Sql.in(DISPATCHING, RUNNING)));

  /**
   * Brings sharded parents up to date with their shards: FAILED as soon as one shard failed for good,
   * SUCCESS (results in shard order) when all succeeded, otherwise RUNNING (its deadline is its shards').
   */
  private static final Sql SETTLE_PARENTS = Sql.of("""
      WITH %s, agg AS (
        SELECT parent_id, count(*) AS total,
               count(*) FILTER (WHERE status = 'SUCCESS') AS ok,
               count(*) FILTER (WHERE status IN %s) AS bad
          FROM tasks WHERE parent_id = ANY(:parents) GROUP BY parent_id
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
        FROM agg, lease
       WHERE p.task_id = agg.parent_id AND p.status IN %s
      RETURNING p.task_id, p.status, p.next_trigger_time, p.priority, p.result::text AS result, p.error,
                NULL::bigint AS parent_id""".formatted(Sql.LEASE, Sql.in(FAILED, CANCELLED, SKIPPED),
      Sql.in(DELAYED, READY, RUNNING)));

  /**
   * Sharded parents whose shards may all be settled without a result having triggered it (a shard
   * failed by the recovery scan's timeout): RUNNING parents carry the 'infinity' deadline, DELAYED ones
   * are due. Read from the partial index of open sharded parents (V12), its predicate said word for word,
   * so the sweep costs what the sharded work in flight is, not every task ever run.
   */
  private static final Sql STALE_PARENTS = Sql.of("""
      SELECT task_id FROM tasks
       WHERE parent_id IS NULL AND shard_total > 1 AND status IN ('DELAYED', 'RUNNING')
         AND (status = 'RUNNING' AND lease_deadline = 'infinity'
              OR status = 'DELAYED' AND next_trigger_time <= now() - interval '5 seconds')
       LIMIT 1000""");

  /** What a result needs that only the database knows when another leader dispatched the task. */
  private static final Sql RETRY_STATE = Sql.of("""
      SELECT task_id, attempt, retry_count, max_retry, refires FROM tasks
       WHERE task_id = ANY(:ids) AND executor_id = :executor AND status IN %s"""
      .formatted(Sql.in(DISPATCHING, RUNNING)));

  private static final Sql HELD_BY = Sql.of("""
      SELECT task_id, attempt, retry_count, max_retry, refires FROM tasks
       WHERE status IN %s AND executor_id = :executor
       LIMIT :limit""".formatted(Sql.in(DISPATCHING, RUNNING)));

  private static final String READY_COLUMNS = """
      task_id, task_type, processor, priority, trigger_time, next_trigger_time, timeout_ms,
      payload::text AS payload, retry_count, max_retry, shard_total, shard_index, traceparent""";

  /**
   * Tasks waiting for an executor: READY ones (released by an executor, or rescued) and due DELAYED
   * ones the claim read but the dispatch could not hold (memory cap). Two index-friendly halves.
   */
  static final Sql LOAD_READY = Sql.of("""
      (SELECT %1$s
         FROM tasks
        WHERE status = 'READY' AND processor = ANY(:processors) AND %2$s
        ORDER BY priority DESC, next_trigger_time, task_id
        LIMIT :limit)
      UNION ALL
      (SELECT %1$s
         FROM tasks
        WHERE status = 'DELAYED' AND next_trigger_time <= now() AND next_trigger_time >= now() - interval '1 day'
          AND processor = ANY(:processors) AND %2$s
        ORDER BY next_trigger_time
        LIMIT :limit)""".formatted(READY_COLUMNS, Sql.RUNS_ITSELF));

  private final Pool pool;
  private final String nodeId;

  /** @param nodeId this node's {@code AX_NODE_ID}, stamped as {@code last_run_node} on what it dispatches */
  public ExecutionStore(Pool pool, String nodeId) {
    this.pool = pool;
    this.nodeId = nodeId;
  }

  /**
   * The tasks that are DISPATCHING to {@code executorId} now, each with the attempt it must report.
   *
   * @param leadMs tasks due up to this much later than the database's now are written too
   */
  public Future<List<Attempt>> dispatch(long[] taskIds, String executorId, long ackTimeoutMs, long leadMs,
                                        Fence fence) {
    long[] sorted = taskIds.clone();
    Arrays.sort(sorted);
    return pool.preparedQuery(DISPATCH.text()).execute(DISPATCH.params().fence(fence)
        .set("ids", SqlArrays.boxed(sorted)).set("executor", executorId).set("node", nodeId)
        .set("ack_timeout_ms", ackTimeoutMs).set("lead_ms", leadMs).tuple()).map(rows -> {
          List<Attempt> out = new ArrayList<>(rows.rowCount());
          for (Row r : rows) {
            out.add(new Attempt(r.getLong("task_id"), r.getInteger("attempt")));
          }
          return out;
        });
  }

  /** The executor took these into its buffer: RUNNING, with the run deadline starting now. */
  public Future<Integer> acked(List<Attempt> tasks, String executorId, Fence fence) {
    return pool.preparedQuery(ACK.text()).execute(attempts(ACK.params(), tasks).fence(fence)
        .set("executor", executorId).tuple()).map(RowSet::rowCount);
  }

  /** Rejected or unanswered: back to READY; returns the ids that were released. */
  public Future<List<Long>> release(List<Attempt> tasks, String executorId, Fence fence) {
    return pool.preparedQuery(RELEASE.text()).execute(attempts(RELEASE.params(), tasks).fence(fence)
        .set("executor", executorId).tuple()).map(rows -> {
          List<Long> out = new ArrayList<>(rows.rowCount());
          rows.forEach(r -> out.add(r.getLong("task_id")));
          return out;
        });
  }

  /**
   * Writes an executor's outcomes; returns those applied (the rest were not this executor's attempt, or
   * already settled). Fails with {@link FencedOut} when the term is no longer current: the executor must
   * then send them again to the next leader, not drop them.
   */
  public Future<List<Settled>> complete(List<Completion> batch, String executorId, Fence fence) {
    List<Completion> sorted = new ArrayList<>(batch);
    sorted.sort(Comparator.comparingLong(Completion::taskId));
    return pool.preparedQuery(COMPLETE.text()).execute(CompletionColumns.bind(COMPLETE.params(), sorted).fence(fence)
        .set("executor", executorId).tuple()).map(rows -> {
          List<Settled> out = new ArrayList<>(rows.rowCount());
          for (Row r : rows) {
            if (!r.getBoolean("fenced_in")) {
              throw new FencedOut(fence);
            }
            if (r.getLong("task_id") != null) { // the one row of a write that changed nothing has no task
              out.add(ScheduleStore.settled(r));
            }
          }
          return out;
        });
  }

  /** Updates the parents of settled shards; answers the parents that reached a terminal status. */
  public Future<List<Settled>> settleParents(List<Long> parentIds, Fence fence) {
    if (parentIds.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    return pool.preparedQuery(SETTLE_PARENTS.text()).execute(SETTLE_PARENTS.params().fence(fence)
        .set("parents", parentIds.toArray(new Long[0])).tuple()).map(rows -> {
          List<Settled> out = new ArrayList<>();
          for (Settled s : ScheduleStore.settled(rows)) {
            if (s.status().isTerminal()) {
              out.add(s);
            }
          }
          return out;
        });
  }

  public Future<List<Long>> staleParents() {
    return pool.query(STALE_PARENTS.text()).execute().map(rows -> {
      List<Long> out = new ArrayList<>(rows.rowCount());
      rows.forEach(r -> out.add(r.getLong("task_id")));
      return out;
    });
  }

  /** Retry state of the given tasks, where the executor still holds them. */
  public Future<List<AttemptBudget>> retryState(long[] taskIds, String executorId) {
    return pool.preparedQuery(RETRY_STATE.text()).execute(RETRY_STATE.params().set("ids", SqlArrays.boxed(taskIds))
        .set("executor", executorId).tuple()).map(ScheduleStore::budgets);
  }

  /** Everything the executor holds (it was declared OFFLINE: these go through the retry policy). */
  public Future<List<AttemptBudget>> heldBy(String executorId, int limit) {
    return pool.preparedQuery(HELD_BY.text()).execute(HELD_BY.params().set("executor", executorId)
        .set("limit", limit).tuple()).map(ScheduleStore::budgets);
  }

  /** READY tasks of the given processors, highest priority and oldest first, then due DELAYED ones. */
  public Future<List<ReadyTask>> loadReady(int limit, Collection<String> processors) {
    return pool.preparedQuery(LOAD_READY.text()).execute(LOAD_READY.params().set("limit", limit)
        .set("processors", processors.toArray(new String[0])).tuple()).map(rows -> {
          List<ReadyTask> out = new ArrayList<>(rows.rowCount());
          rows.forEach(r -> out.add(readyTask(r)));
          return out;
        });
  }

  static ReadyTask readyTask(Row r) {
    return new ReadyTask(r.getLong("task_id"), r.getString("task_type"), r.getString("processor"),
        r.getShort("priority"), Times.toMillis(r.getOffsetDateTime("trigger_time")),
        Times.toMillis(r.getOffsetDateTime("next_trigger_time")), r.getInteger("timeout_ms"), r.getString("payload"),
        r.getShort("retry_count"), r.getShort("max_retry"), r.getInteger("shard_total"), r.getInteger("shard_index"),
        r.getString("traceparent"));
  }

  /** Binds {@code :ids} and {@code :attempts}, sorted by task id so rows are locked in id order. */
  private static Sql.Params attempts(Sql.Params params, List<Attempt> unsorted) {
    List<Attempt> tasks = new ArrayList<>(unsorted);
    tasks.sort(Comparator.comparingLong(Attempt::taskId));
    Long[] ids = new Long[tasks.size()];
    Integer[] attempts = new Integer[tasks.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = tasks.get(i).taskId();
      attempts[i] = tasks.get(i).attempt();
    }
    return params.set("ids", ids).set("attempts", attempts);
  }
}
