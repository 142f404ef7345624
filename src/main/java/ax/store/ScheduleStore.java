package ax.store;

import ax.leader.Fence;
import ax.task.AttemptBudget;
import ax.task.Completion;
import ax.task.HttpTask;
import ax.task.ReadyTask;
import ax.task.Settled;
import ax.task.TaskStatus;
import ax.wheel.ScheduledTask;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static ax.task.TaskStatus.DELAYED;
import static ax.task.TaskStatus.READY;

/**
 * The scheduler's hot path against the tasks table: load the coming window, claim due tasks in a batch,
 * write the outcomes of HTTP calls in a batch, and find what recovery must repair. Every state change is
 * a guarded update; every leader write carries the term's {@link Fence}. Times: {@code next_trigger_time}
 * is when the next attempt is due (the scheduling column: loader, claim, recovery); {@code trigger_time}
 * stays what the caller asked.
 *
 * <p>Due processor tasks are read by the claim and handed to the leader's executor dispatch
 * ({@link ExecutionStore}), which writes them DELAYED/READY → DISPATCHING; the loader leaves READY
 * processor tasks (released by an executor) to the dispatch's own top-up.
 */
public final class ScheduleStore {

  /** Walks the (next_trigger_time, status) index from the cursor; never a full scan (PlanTest). */
  static final Sql LOAD_PENDING = Sql.of("""
      SELECT task_id, next_trigger_time, priority
        FROM tasks
       WHERE next_trigger_time >= :after_time AND next_trigger_time <= :horizon
         AND (next_trigger_time > :after_time OR task_id > :after_id)
         AND status IN %s
         AND (status = 'DELAYED' OR callback_url IS NOT NULL)
         AND %s
       ORDER BY next_trigger_time, task_id
       LIMIT :limit""".formatted(Sql.in(DELAYED, READY), Sql.RUNS_ITSELF));

  private static final String CLAIMED_COLUMNS = """
      t.task_id, t.status, t.attempt, t.api_key, t.task_type, t.trigger_time, t.next_trigger_time, t.priority,
      t.payload::text AS payload, t.callback_url, t.timeout_ms, t.retry_count, t.max_retry, t.processor,
      t.shard_total, t.shard_index, t.traceparent""";

  /**
   * Claims a batch in one round trip. HTTP targets go DELAYED/READY → RUNNING in one write (the in-process
   * HTTP invoker acknowledges at once); {@code epoch} records the term that makes the call. Due processor
   * tasks are only <em>read</em> (same fence): the executor dispatch moves them to DISPATCHING itself when
   * an executor has room, so a processor task costs one write less; while they wait they stay DELAYED.
   *
   * <p>{@code :lead_ms} claims tasks due that soon ahead of their time (AX_CLAIM_LEAD_MS): the caller holds
   * each until its trigger time, so the claim's round trip is off the lateness path. A call's run deadline
   * and {@code started_at} count from the trigger time then, not from the claim.
   */
  static final Sql CLAIM_DUE = Sql.of("""
      WITH %1$s, http AS (
        UPDATE tasks t SET
          status         = 'RUNNING',
          attempt        = t.attempt + 1,
          epoch          = lease.epoch,
          last_run_node  = :node,
          started_at     = greatest(now(), t.next_trigger_time),
          lease_deadline = greatest(now(), t.next_trigger_time) + t.timeout_ms * interval '1 millisecond',
          updated_at     = now()
          FROM lease
         WHERE t.task_id = ANY(:ids)
           AND t.status IN %2$s
           AND t.callback_url IS NOT NULL
           AND %5$s
        RETURNING %3$s
      )
      SELECT * FROM http
      UNION ALL
      SELECT %3$s
        FROM tasks t, lease
       WHERE t.task_id = ANY(:ids)
         AND t.status IN %2$s
         AND t.processor IS NOT NULL
         AND %4$s
         AND %5$s""".formatted(Sql.LEASE, Sql.in(DELAYED, READY), CLAIMED_COLUMNS,
      Sql.RUNS_ITSELF, Sql.dueBy("now() + :lead_ms * interval '1 millisecond'")));

  /** Tasks of a fired batch that the claim skipped because the database says they are not due yet. */
  static final Sql NOT_YET_DUE = Sql.of("""
      SELECT task_id, next_trigger_time, priority FROM tasks t
       WHERE task_id = ANY(:ids) AND status = 'DELAYED' AND NOT %s""".formatted(Sql.dueBy("now()")));

  /**
   * Writes outcomes of RUNNING HTTP tasks and their attempt-log rows in one statement, applied only where
   * the task is still RUNNING in the same attempt. {@code %1$s} is empty (the caller's own calls: fenced by
   * attempt alone, see {@link #completeCalls}) or the lease fence (recovery: {@link #settleLost}).
   */
  private static final String COMPLETE_RUNNING = """
      WITH %1$s%2$s
      , done AS (
        UPDATE tasks t SET
      %3$s
          FROM v%4$s
         WHERE t.task_id = v.task_id AND t.attempt = v.attempt AND t.status = 'RUNNING'
        RETURNING t.task_id, t.attempt, t.status, t.next_trigger_time, t.priority, t.last_run_node, t.executor_id,
                  t.started_at, t.parent_id, v.outcome, v.error
      ), logged AS (
        INSERT INTO task_attempts (task_id, attempt, node_id, executor_id, started_at, finished_at, outcome, error)
        SELECT task_id, attempt, coalesce(last_run_node, ''), executor_id, started_at, now(), outcome, error FROM done
        ON CONFLICT (task_id, attempt) DO NOTHING
      )
      SELECT task_id, status, next_trigger_time, priority, NULL::text AS result, error, parent_id FROM done""";

  private static final Sql COMPLETE_CALLS = Sql.of(COMPLETE_RUNNING.formatted("", CompletionColumns.V,
      CompletionColumns.SET_OUTCOME, ""));

  private static final Sql COMPLETE_FENCED = Sql.of(COMPLETE_RUNNING.formatted(Sql.LEASE + ", ", CompletionColumns.V,
      CompletionColumns.SET_OUTCOME, ", lease"));

  /** DISPATCHING past its deadline goes back to READY for another round (a new attempt). */
  private static final Sql RESCUE_UNACKED = Sql.of("""
      WITH %s
      UPDATE tasks t SET status = 'READY', executor_id = NULL, lease_deadline = NULL, updated_at = now()
        FROM lease
       WHERE t.status = 'DISPATCHING' AND t.lease_deadline < now()
      RETURNING t.task_id, t.next_trigger_time, t.priority""".formatted(Sql.LEASE));

  /**
   * The terms before {@code :epoch} that still have HTTP calls in flight, with who held them: a successor
   * re-fires a term's calls at once when its holder has left the cluster. {@code lease_deadline} bounds
   * the walk to the small in-flight index.
   */
  private static final Sql TERMS_WITH_CALLS_IN_FLIGHT = Sql.of("""
      SELECT f.epoch, lt.holder, lt.member
        FROM (SELECT DISTINCT epoch FROM tasks
               WHERE %s AND callback_url IS NOT NULL AND epoch < :epoch) f
        LEFT JOIN lease_terms lt ON lt.name = :lease AND lt.epoch = f.epoch""".formatted(Sql.RUNNING_IN_FLIGHT));

  /** The HTTP calls in flight of the given terms. */
  private static final Sql CALLS_OF_TERMS = Sql.of("""
      SELECT task_id, attempt, retry_count, max_retry, refires FROM tasks
       WHERE %s AND callback_url IS NOT NULL AND epoch = ANY(:epochs)
       LIMIT :limit""".formatted(Sql.RUNNING_IN_FLIGHT));

  /** RUNNING past its run deadline (+ grace, so a live owner's own timeout wins). */
  private static final Sql OVERDUE_RUNNING = Sql.of("""
      SELECT task_id, attempt, retry_count, max_retry, refires, callback_url IS NOT NULL AS http FROM tasks
       WHERE %s AND lease_deadline < now() - :grace_ms * interval '1 millisecond'
       ORDER BY lease_deadline
       LIMIT :limit""".formatted(Sql.RUNNING_IN_FLIGHT));

  /** Due tasks still waiting (DELAYED, or READY HTTP targets) within the lookback window. */
  static final Sql OVERDUE_PENDING = Sql.of("""
      SELECT task_id, next_trigger_time, priority FROM tasks
       WHERE next_trigger_time >= now() - :lookback_ms * interval '1 millisecond'
         AND next_trigger_time <= now() - :grace_ms * interval '1 millisecond'
         AND status IN %s
         AND (status = 'DELAYED' OR callback_url IS NOT NULL)
         AND %s
       ORDER BY next_trigger_time
       LIMIT :limit""".formatted(Sql.in(DELAYED, READY), Sql.RUNS_ITSELF));

  private final Pool pool;
  private final String nodeId;

  /** @param nodeId this node's {@code AX_NODE_ID}, stamped as {@code last_run_node} on what it claims */
  public ScheduleStore(Pool pool, String nodeId) {
    this.pool = pool;
    this.nodeId = nodeId;
  }

  public Future<List<ScheduledTask>> loadPending(long afterTimeMs, long afterTaskId, long horizonMs, int limit) {
    return pool.preparedQuery(LOAD_PENDING.text()).execute(LOAD_PENDING.params()
            .set("after_time", Times.toTimestamp(afterTimeMs)).set("after_id", afterTaskId)
            .set("horizon", Times.toTimestamp(horizonMs)).set("limit", limit).tuple())
        .map(ScheduleStore::toScheduled);
  }

  /** What a claim took: HTTP targets to call now, and due processor tasks for the executor dispatch. */
  public record Claimed(List<HttpTask> http, List<ReadyTask> ready) {
    public int size() {
      return http.size() + ready.size();
    }
  }

  /** @param leadMs tasks due up to this much later than the database's now are claimed too */
  public Future<Claimed> claimDue(long[] taskIds, Fence fence, long leadMs) {
    return pool.preparedQuery(CLAIM_DUE.text())
        .execute(CLAIM_DUE.params().fence(fence).set("ids", SqlArrays.boxed(taskIds)).set("node", nodeId)
            .set("lead_ms", leadMs).tuple())
        .map(rows -> {
          List<HttpTask> http = new ArrayList<>(rows.rowCount());
          List<ReadyTask> ready = new ArrayList<>();
          for (Row r : rows) {
            if (r.getString("processor") != null) {
              ready.add(ExecutionStore.readyTask(r));
            } else {
              http.add(new HttpTask(r.getLong("task_id"), r.getInteger("attempt"), r.getString("api_key"),
                  r.getString("task_type"), Times.toMillis(r.getOffsetDateTime("trigger_time")),
                  Times.toMillis(r.getOffsetDateTime("next_trigger_time")), r.getShort("priority"),
                  r.getString("payload"), r.getString("callback_url"), r.getInteger("timeout_ms"),
                  r.getShort("retry_count"), r.getShort("max_retry"), r.getString("traceparent")));
            }
          }
          return new Claimed(http, ready);
        });
  }

  public Future<List<ScheduledTask>> notYetDue(long[] taskIds) {
    return pool.preparedQuery(NOT_YET_DUE.text()).execute(NOT_YET_DUE.params().set("ids", SqlArrays.boxed(taskIds))
        .tuple()).map(ScheduleStore::toScheduled);
  }

  /**
   * Writes what this node's own HTTP calls returned. Fenced by attempt, not by the lease: the call
   * happened, whoever leads now, and the outcome is the truth about that attempt. If another leader has
   * re-fired the task meanwhile (a new attempt), the write changes nothing.
   */
  public Future<List<Settled>> completeCalls(List<Completion> batch) {
    return complete(COMPLETE_CALLS, COMPLETE_CALLS.params(), batch);
  }

  /** Settles attempts recovery gave up on (lost or overdue): a leader write, fenced by the term. */
  public Future<List<Settled>> settleLost(List<Completion> batch, Fence fence) {
    return complete(COMPLETE_FENCED, COMPLETE_FENCED.params().fence(fence), batch);
  }

  private Future<List<Settled>> complete(Sql sql, Sql.Params params, List<Completion> batch) {
    if (batch.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    List<Completion> sorted = new ArrayList<>(batch);
    sorted.sort(Comparator.comparingLong(Completion::taskId)); // rows locked in id order
    return pool.preparedQuery(sql.text()).execute(CompletionColumns.bind(params, sorted).tuple())
        .map(ScheduleStore::settled);
  }

  public Future<List<ScheduledTask>> rescueUnacked(Fence fence) {
    return pool.preparedQuery(RESCUE_UNACKED.text()).execute(RESCUE_UNACKED.params().fence(fence).tuple())
        .map(ScheduleStore::toScheduled);
  }

  /** A term before ours with HTTP calls still in flight; {@code member} is null when not known. */
  public record TermInFlight(long epoch, String holder, String member) {
  }

  public Future<List<TermInFlight>> termsWithCallsInFlight(String lease, long beforeEpoch) {
    return pool.preparedQuery(TERMS_WITH_CALLS_IN_FLIGHT.text())
        .execute(TERMS_WITH_CALLS_IN_FLIGHT.params().set("lease", lease).set("epoch", beforeEpoch).tuple())
        .map(rows -> {
          List<TermInFlight> out = new ArrayList<>(rows.rowCount());
          rows.forEach(r -> out.add(new TermInFlight(r.getLong("epoch"), r.getString("holder"), r.getString("member"))));
          return out;
        });
  }

  public Future<List<AttemptBudget>> callsOfTerms(List<Long> epochs, int limit) {
    return pool.preparedQuery(CALLS_OF_TERMS.text())
        .execute(CALLS_OF_TERMS.params().set("epochs", epochs.toArray(new Long[0])).set("limit", limit).tuple())
        .map(ScheduleStore::budgets);
  }

  /** A RUNNING attempt past its deadline; {@code http} tells an HTTP call from an executor's task. */
  public record Overdue(AttemptBudget attempt, boolean http) {
  }

  public Future<List<Overdue>> overdueRunning(long graceMs, int limit) {
    return pool.preparedQuery(OVERDUE_RUNNING.text())
        .execute(OVERDUE_RUNNING.params().set("grace_ms", graceMs).set("limit", limit).tuple())
        .map(rows -> {
          List<Overdue> out = new ArrayList<>(rows.rowCount());
          for (Row r : rows) {
            out.add(new Overdue(budget(r), r.getBoolean("http")));
          }
          return out;
        });
  }

  public Future<List<ScheduledTask>> overduePending(long lookbackMs, long graceMs, int limit) {
    return pool.preparedQuery(OVERDUE_PENDING.text()).execute(OVERDUE_PENDING.params().set("lookback_ms", lookbackMs)
        .set("grace_ms", graceMs).set("limit", limit).tuple()).map(ScheduleStore::toScheduled);
  }

  static List<Settled> settled(RowSet<Row> rows) {
    List<Settled> out = new ArrayList<>(rows.rowCount());
    for (Row r : rows) {
      out.add(settled(r));
    }
    return out;
  }

  static Settled settled(Row r) {
    return new Settled(r.getLong("task_id"), TaskStatus.valueOf(r.getString("status")),
        Times.toMillis(r.getOffsetDateTime("next_trigger_time")), r.getShort("priority"), r.getString("result"),
        r.getString("error"), r.getLong("parent_id"));
  }

  static List<AttemptBudget> budgets(RowSet<Row> rows) {
    List<AttemptBudget> out = new ArrayList<>(rows.rowCount());
    rows.forEach(r -> out.add(budget(r)));
    return out;
  }

  private static AttemptBudget budget(Row r) {
    return new AttemptBudget(r.getLong("task_id"), r.getInteger("attempt"), r.getShort("retry_count"),
        r.getShort("max_retry"), r.getShort("refires"));
  }

  private static List<ScheduledTask> toScheduled(Iterable<Row> rows) {
    List<ScheduledTask> out = new ArrayList<>();
    for (Row r : rows) {
      out.add(new ScheduledTask(r.getLong("task_id"), Times.toMillis(r.getOffsetDateTime("next_trigger_time")),
          r.getShort("priority")));
    }
    return out;
  }
}
