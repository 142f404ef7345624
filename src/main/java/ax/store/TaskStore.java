package ax.store;

import ax.task.DependencyGate;
import ax.task.NewTask;
import ax.task.TaskRecord;
import ax.task.TaskStateMachine;
import ax.task.TaskStatus;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The API's view of the tasks table: submit, read, list, cancel. Every read is scoped by tenant, so
 * another tenant's task is indistinguishable from a missing one. The scheduler's hot path lives in
 * {@link ScheduleStore}.
 */
public final class TaskStore {

  private static final String COLUMNS = """
      task_id, tenant_id, task_type, trigger_time, status, priority, max_retry, retry_count, attempt,
      timeout_ms, callback_url, processor, payload::text AS payload, biz_key, shard_total, last_run_node,
      result::text AS result, error, created_at, updated_at, started_at, finished_at, schedule_id, scheduled_time,
      notify_url, fingerprint IS NOT NULL AS dedupe""";

  /**
   * What reads answer: the stored columns and the task's parents (one probe of task_dependencies_child
   * per row; inserts return {@link #COLUMNS}, their parents are known to the caller).
   */
  private static final String READ_COLUMNS = COLUMNS + """
      , (SELECT array_agg(d.parent_id ORDER BY d.parent_id) FROM task_dependencies d
          WHERE d.child_id = tasks.task_id) AS depends_on""";

  /**
   * The fingerprint rule's window: trigger times less than {@value #FINGERPRINT_WINDOW} apart, written as
   * a range over {@code column} so {@code tasks_fingerprint (fingerprint, trigger_time)} serves it. V17's
   * {@code ax_fingerprint_free} states the same window for single inserts (a migration cannot read a
   * Java constant); DedupeStoreTest holds both to the same boundary.
   */
  static final String FINGERPRINT_WINDOW = "5 seconds";

  static String fingerprintNear(String column, String trigger) {
    return "%1$s > %2$s - interval '%3$s' AND %1$s < %2$s + interval '%3$s'"
        .formatted(column, trigger, FINGERPRINT_WINDOW);
  }

  /**
   * A new task is due at its trigger time: next_trigger_time starts equal to it. {@code waiting_on} and
   * {@code error} are set for a task with dependencies only (held CREATED, or SKIPPED at once). A task with
   * a fingerprint is inserted only if {@code ax_fingerprint_free} (V17) finds no equal task due less than
   * 5 s away, after locking the fingerprint's gate until the transaction ends.
   */
  private static final Sql INSERT = Sql.of("""
      INSERT INTO tasks (task_id, tenant_id, api_key, task_type, trigger_time, next_trigger_time, status, priority,
                         max_retry, timeout_ms, callback_url, processor, payload, biz_key, shard_total, waiting_on,
                         error, finished_at, notify_url, fingerprint)
      SELECT :id::bigint, :tenant::text, :api_key::text, :task_type::text, :trigger::timestamptz, :trigger::timestamptz,
             :status::text, :priority::smallint, :max_retry::smallint, :timeout_ms::int, :callback_url::text,
             :processor::text, :payload::text::jsonb, :biz_key::text, :shard_total::int, :waiting_on::smallint,
             :error::text, CASE WHEN :status::text = 'SKIPPED' THEN now() END, :notify_url::text, :fingerprint::uuid
       WHERE :fingerprint::uuid IS NULL OR ax_fingerprint_free(:fingerprint::uuid, :trigger::timestamptz)
      ON CONFLICT DO NOTHING
      RETURNING\s""" + COLUMNS);

  /**
   * The parents a new task names: locked in id order (two children of the same parents cannot deadlock)
   * so none settles until this transaction commits — its settling trigger then finds the child — and
   * flagged {@code has_dependants} when they have not ended, which is what makes that trigger run.
   */
  private static final Sql LOCK_PARENTS = Sql.of("""
      WITH locked AS (
        SELECT task_id, status, has_dependants FROM tasks
         WHERE task_id = ANY(:parents) AND tenant_id = :tenant
         ORDER BY task_id
           FOR UPDATE
      ), flagged AS (
        UPDATE tasks p SET has_dependants = true
          FROM locked l
         WHERE p.task_id = l.task_id AND NOT l.has_dependants AND l.status IN %s
      )
      SELECT task_id, status FROM locked""".formatted(Sql.in(TaskStatus.CREATED, TaskStatus.DELAYED, TaskStatus.READY,
      TaskStatus.DISPATCHING, TaskStatus.RUNNING)));

  private static final Sql INSERT_DEPENDENCIES = Sql.of("""
      INSERT INTO task_dependencies (parent_id, child_id) SELECT unnest(:parents::bigint[]), :child""");

  /** A task stored SKIPPED because a parent had already failed: its alert event, announced for the metric. */
  private static final Sql ALERT_SKIPPED = Sql.of("""
      WITH a AS (
        INSERT INTO alert_events (kind, tenant_id, task_id, detail) VALUES ('task_skipped', :tenant, :id, :detail)
        RETURNING 1
      )
      SELECT pg_notify('%s', count(*)::text) FROM a""".formatted(ReadyAnnouncements.SKIPPED_CHANNEL));

  /**
   * Locks the gates (V17) of the given fingerprints, in slot order, until the transaction ends: an
   * insert of an equal task elsewhere waits for this transaction's commit, and the checks of the
   * statements that follow (each with a fresh snapshot) see what such an insert committed before.
   */
  private static final Sql LOCK_GATES = Sql.of("""
      SELECT count(*) FROM (
        SELECT 1 FROM fingerprint_gates
         WHERE slot IN (SELECT ax_fingerprint_gate(f) FROM unnest(:fingerprints::uuid[]) AS f)
         ORDER BY slot
           FOR UPDATE) AS locked""");

  /** As LOCK_GATES, without waiting: the gates someone else holds are skipped; answers the slots locked. */
  private static final Sql LOCK_FREE_GATES = Sql.of("""
      SELECT slot FROM fingerprint_gates
       WHERE slot IN (SELECT ax_fingerprint_gate(f) FROM unnest(:fingerprints::uuid[]) AS f)
       ORDER BY slot
         FOR UPDATE SKIP LOCKED""");

  /**
   * The insert of {@link #INSERT_MANY} and {@link #INSERT_GROUP}: from {@code %s}, rows with the columns
   * of {@link #UNNESTED}.
   */
  private static final String INSERT_UNNESTED = """
      INSERT INTO tasks (task_id, tenant_id, api_key, task_type, trigger_time, next_trigger_time, status, priority,
                         max_retry, timeout_ms, callback_url, processor, payload, biz_key, shard_total, notify_url,
                         fingerprint)
      SELECT id, tenant, akey, ttype, trig, trig, st, prio, mretry, tmo, cb, proc, pl::jsonb, bk, 1, nu, fp
        FROM %s
      ON CONFLICT DO NOTHING
      RETURNING task_id, created_at""";

  /** The tasks of one insert as rows, one array per column (see {@link #insertRound}), numbered in order. */
  private static final String UNNESTED = """
      unnest(:ids::bigint[], :tenants::text[], :api_keys::text[], :task_types::text[],
                    :triggers::timestamptz[], :statuses::text[], :priorities::smallint[], :max_retries::smallint[],
                    :timeouts::int[], :callback_urls::text[], :processors::text[], :payloads::text[],
                    :biz_keys::text[], :notify_urls::text[], :fingerprints::uuid[])
             WITH ORDINALITY AS u(id, tenant, akey, ttype, trig, st, prio, mretry, tmo, cb, proc, pl, bk, nu, fp, ord)""";

  /**
   * Many unsharded tasks in one statement (the batch endpoint): one round trip instead of one per
   * task. Rows a biz_key conflict or the fingerprint rule skipped are not returned; the caller answers
   * them as duplicates. Only the id and the insert time are returned (see {@link NewTask#asInserted}).
   * The fingerprint check is set-wise, so it cannot see rows of its own statement: the caller passes
   * equal fingerprints in separate statements (rounds), with their gates locked before (LOCK_FREE_GATES
   * in the first transaction, LOCK_GATES in the one that waits for the busy gates). Rows go in
   * fingerprint order (then request order), so two batches racing with the same biz_keys tend to wait
   * for each other in the same order.
   */
  private static final Sql INSERT_MANY = Sql.of(INSERT_UNNESTED.formatted(UNNESTED + """
       WHERE fp IS NULL OR NOT EXISTS (
               SELECT 1 FROM tasks x WHERE x.fingerprint = u.fp AND %s)
       ORDER BY fp, ord""".formatted(fingerprintNear("x.trigger_time", "u.trig"))));

  /**
   * A few unsharded tasks in one autocommit statement (single submissions that arrived together, see
   * SingleInserts): one round trip where {@link #insertMany} with fingerprints takes four (BEGIN, the
   * gates, the insert, COMMIT). Each row checks its fingerprint with V17's {@code ax_fingerprint_free}, as
   * a lone insert does: it locks the row's gate, then looks with a fresh snapshot that also sees the rows
   * this statement inserted before it, so of equal rows the first in order is created. The rows are
   * sorted by fingerprint (so by gate slot) in a subquery that OFFSET 0 keeps from being flattened: the
   * function then runs on the sorted rows, one after another, and the gates are locked in slot order as
   * V17's locking rule asks. Row at a time costs more per row than the batch's set-wise check (V17), so it
   * is for groups, not for batches of a thousand.
   */
  private static final Sql INSERT_GROUP = Sql.of(INSERT_UNNESTED.formatted("""
      (SELECT * FROM %s
        ORDER BY fp, ord OFFSET 0) AS u
       WHERE fp IS NULL OR ax_fingerprint_free(fp, trig)""".formatted(UNNESTED)));

  /**
   * The shards of just-inserted parents (a submitted sharded task, sharded occurrences): copies of their
   * parent with parent_id and shard_index, the same status (a held parent's shards are held with it).
   */
  static final Sql INSERT_SHARDS = Sql.of("""
      INSERT INTO tasks (task_id, tenant_id, api_key, task_type, trigger_time, next_trigger_time, status, priority,
                         max_retry, timeout_ms, processor, payload, shard_total, parent_id, shard_index)
      SELECT c.id, p.tenant_id, p.api_key, p.task_type, p.trigger_time, p.next_trigger_time, p.status, p.priority,
             p.max_retry, p.timeout_ms, p.processor, p.payload, p.shard_total, p.task_id, c.idx
        FROM unnest(:shard_ids::bigint[], :parents::bigint[], :indexes::int[]) AS c(id, parent, idx)
        JOIN tasks p ON p.task_id = c.parent""");

  /** The parameters of {@link #INSERT_SHARDS} for one parent's shards {@code 0..ids.length-1}. */
  static Tuple shardsOf(long parent, long[] ids) {
    Long[] shardIds = new Long[ids.length];
    Long[] parents = new Long[ids.length];
    Integer[] indexes = new Integer[ids.length];
    for (int i = 0; i < ids.length; i++) {
      shardIds[i] = ids[i];
      parents[i] = parent;
      indexes[i] = i;
    }
    return INSERT_SHARDS.params().set("shard_ids", shardIds).set("parents", parents).set("indexes", indexes).tuple();
  }

  /**
   * The holders of the biz_keys of several skipped inserts, in one statement however many there are (a
   * retried batch repeats every task): a row per submission whose key is held, with its place in the arrays
   * ({@code wanted}, from 1).
   */
  private static final Sql FIND_BY_BIZ_KEYS = Sql.of("""
      SELECT w.wanted, %s
        FROM unnest(:tenants::text[], :task_types::text[], :biz_keys::text[]) WITH ORDINALITY
             AS w(want_tenant, want_type, want_key, wanted)
        JOIN tasks ON tenant_id = w.want_tenant AND task_type = w.want_type AND biz_key = w.want_key"""
      .formatted(READ_COLUMNS));

  /**
   * The tasks the fingerprints of several skipped inserts collided with, in one statement: for each, one
   * whose trigger time is less than 5 s away (read from V17's {@code tasks_fingerprint}). There can be two,
   * one on each side (they are then 5 s or more apart from each other); the earlier is the answer, so a
   * repeat always gets the same one. {@code wanted} as in {@link #FIND_BY_BIZ_KEYS}.
   */
  private static final Sql FIND_BY_FINGERPRINTS = Sql.of("""
      SELECT w.wanted, held.*
        FROM unnest(:fingerprints::uuid[], :triggers::timestamptz[], :tenants::text[]) WITH ORDINALITY
             AS w(want_fingerprint, want_trigger, want_tenant, wanted)
       CROSS JOIN LATERAL (
             SELECT %s
               FROM tasks
              WHERE fingerprint = w.want_fingerprint
                AND %s
                AND tenant_id = w.want_tenant
              ORDER BY trigger_time, task_id
              LIMIT 1) AS held""".formatted(READ_COLUMNS, fingerprintNear("trigger_time", "w.want_trigger")));

  private static final Sql FIND = Sql.of("SELECT " + READ_COLUMNS + " FROM tasks WHERE task_id = :id AND tenant_id = :tenant");

  /**
   * The sync endpoint's deadline: whatever has not finished is FAILED now. An executor still running
   * it will have its result refused (the task is no longer DISPATCHING/RUNNING).
   */
  private static final Sql FAIL_UNFINISHED = Sql.of("""
      WITH failed AS (
        UPDATE tasks SET status = 'FAILED', error = :error, lease_deadline = NULL, finished_at = now(),
                         updated_at = now()
         WHERE task_id = :id AND tenant_id = :tenant AND status NOT IN %1$s
        RETURNING %2$s
      )
      SELECT * FROM failed
      UNION ALL
      SELECT %2$s FROM tasks
       WHERE task_id = :id AND tenant_id = :tenant AND NOT EXISTS (SELECT 1 FROM failed)"""
      .formatted(Sql.in(TaskStatus.SUCCESS, TaskStatus.FAILED, TaskStatus.CANCELLED, TaskStatus.SKIPPED),
          READ_COLUMNS));

  /** Cancelling a sharded parent cancels its shards that have not started either. */
  private static final Sql CANCEL = Sql.of("""
      WITH parent AS (
        UPDATE tasks SET status = 'CANCELLED', finished_at = now(), updated_at = now()
         WHERE task_id = :id AND tenant_id = :tenant AND status = ANY(:from)
        RETURNING task_id
      ), shards AS (
        UPDATE tasks SET status = 'CANCELLED', finished_at = now(), updated_at = now()
         WHERE parent_id IN (SELECT task_id FROM parent) AND status = ANY(:from)
      )
      SELECT task_id FROM parent""");

  /**
   * The caller's own tasks (shards are not listed), newest first by (created_at, task_id), starting
   * after a position. It walks the index tasks_tenant_created (V5) backwards: the row comparison is its
   * index condition, so a deep page costs what the first one does, and the filters are checked on the
   * rows it walks. The COALESCEs keep the first page (no position) the same statement with the same plan.
   */
  private static final Sql LIST = Sql.of("SELECT " + READ_COLUMNS + """
       FROM tasks
      WHERE tenant_id = :tenant AND parent_id IS NULL
        AND (:status::text IS NULL OR status = :status)
        AND (:task_type::text IS NULL OR task_type = :task_type)
        AND (:schedule_id::bigint IS NULL OR schedule_id = :schedule_id)
        AND (created_at, task_id) < (COALESCE(:after_created::timestamptz, 'infinity'),
                                     COALESCE(:after_id::bigint, 9223372036854775807))
      ORDER BY created_at DESC, task_id DESC
      LIMIT :limit""");

  /**
   * As {@link #LIST}, for one {@code biz_key} of one type: a probe of the unique index tasks_biz_key
   * (tenant_id, task_type, biz_key), so it finds the task at once whatever the tenant holds (LIST
   * would check biz_key on every row it walks). At most one row matches.
   */
  private static final Sql LIST_BY_BIZ_KEY = Sql.of("SELECT " + READ_COLUMNS + """
       FROM tasks
      WHERE tenant_id = :tenant AND task_type = :task_type AND biz_key = :biz_key AND parent_id IS NULL
        AND (:status::text IS NULL OR status = :status)
        AND (:schedule_id::bigint IS NULL OR schedule_id = :schedule_id)
        AND (created_at, task_id) < (COALESCE(:after_created::timestamptz, 'infinity'),
                                     COALESCE(:after_id::bigint, 9223372036854775807))
      ORDER BY created_at DESC, task_id DESC
      LIMIT :limit""");

  /**
   * The submission's W3C traceparent on a task just inserted and its shards (V15). Its own statement, run
   * only when there is a traceparent (tracing on, or the caller sent one), so the insert statements and
   * the untraced path are untouched.
   */
  private static final Sql RECORD_TRACEPARENT = Sql.of("""
      UPDATE tasks SET traceparent = :traceparent WHERE task_id = ANY(:ids) AND traceparent IS NULL""");

  private final Pool pool;

  public TaskStore(Pool pool) {
    this.pool = pool;
  }

  /** Why a submission stored nothing and answered an existing task (API.md "Dependencies and duplicates"). */
  public enum DuplicateReason {
    /** Same tenant, task_type and biz_key. */
    BIZ_KEY("biz_key"),
    /** Same tenant, task_type and canonical payload, trigger times less than 5 s apart. */
    FINGERPRINT("fingerprint");

    private final String wire;

    DuplicateReason(String wire) {
      this.wire = wire;
    }

    /** As the API spells it in {@code duplicate_reason}. */
    public String wire() {
      return wire;
    }
  }

  /**
   * Result of a submission: the stored task, or the existing one it duplicated and why
   * ({@code duplicateReason} null: stored now).
   */
  public record Inserted(TaskRecord task, DuplicateReason duplicateReason, long[] shardIds) {
    public Inserted(TaskRecord task, DuplicateReason duplicateReason) {
      this(task, duplicateReason, new long[0]);
    }

    public boolean duplicate() {
      return duplicateReason != null;
    }
  }

  /** Records {@code traceparent} on the given tasks (see {@link #RECORD_TRACEPARENT}); the rows it changed. */
  public Future<Integer> recordTraceparent(long[] taskIds, String traceparent) {
    return pool.preparedQuery(RECORD_TRACEPARENT.text()).execute(RECORD_TRACEPARENT.params()
        .set("traceparent", traceparent).set("ids", SqlArrays.boxed(taskIds)).tuple()).map(RowSet::rowCount);
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
    if (childIds.length > 0) {
      // The parent and its shards commit together: a parent without all its shards would never finish.
      return pool.withTransaction(conn -> insertOn(conn, t, childIds, null, null));
    }
    return insertOn(pool, t, childIds, null, null);
  }

  /**
   * Inserts made in one transaction, one after another: a batch whose items name each other as parents
   * ({@code "#<index>"}) must see its earlier items when it stores a later one.
   */
  public final class Writes {
    private final SqlConnection conn;

    private Writes(SqlConnection conn) {
      this.conn = conn;
    }

    /** As {@link TaskStore#insert(NewTask, long[])} or, with parents, {@link TaskStore#insertWithParents}. */
    public Future<Inserted> insert(NewTask t, long[] childIds, long[] parents) {
      return parents.length == 0 ? insertOn(conn, t, childIds, null, null)
          : insertWithParents(conn, t, childIds, parents);
    }

    /**
     * Locks the fingerprint gates of every task this transaction will insert, in slot order, before the
     * first insert: the inserts then lock no gate after a higher one, so they cannot deadlock with a batch
     * that locks its gates in one statement.
     */
    public Future<Void> lockFingerprints(java.util.Collection<java.util.UUID> fingerprints) {
      return fingerprints.isEmpty() ? Future.succeededFuture() : lockGates(conn, fingerprints);
    }
  }

  /** Runs {@code work} in one transaction, committed when its future succeeds. */
  public <T> Future<T> inTransaction(java.util.function.Function<Writes, Future<T>> work) {
    return pool.withTransaction(conn -> work.apply(new Writes(conn)));
  }

  /**
   * A task's parents do not all exist among the tenant's tasks: nothing was stored (API: 400 naming
   * {@code depends_on}).
   */
  public static final class UnknownParents extends RuntimeException {
    private final List<Long> missing;

    UnknownParents(List<Long> missing) {
      super("no such task: " + missing);
      this.missing = List.copyOf(missing);
    }

    public List<Long> missing() {
      return missing;
    }
  }

  /**
   * Inserts a task that runs after {@code parents} (1–50 distinct ids of the same tenant). With the parents locked, {@link DependencyGate} decides: it waits in CREATED
   * for the parents that have not ended (their SUCCESS counts it down, V10), or it is SKIPPED at once
   * when one has already failed (with an alert event), or it is admitted as {@code t.status()} when all
   * succeeded. A biz_key repeat stores no dependencies and answers the existing task.
   *
   * @return fails with {@link UnknownParents} when a parent is not one of the tenant's tasks
   */
  public Future<Inserted> insertWithParents(NewTask t, long[] childIds, long[] parents) {
    return pool.withTransaction(conn -> insertWithParents(conn, t, childIds, parents));
  }

  private Future<Inserted> insertWithParents(SqlConnection conn, NewTask t, long[] childIds, long[] parents) {
    Long[] boxed = new Long[parents.length];
    for (int i = 0; i < parents.length; i++) {
      boxed[i] = parents[i];
    }
    return conn.preparedQuery(LOCK_PARENTS.text())
        .execute(LOCK_PARENTS.params().set("parents", boxed).set("tenant", t.tenantId()).tuple())
        .compose(rows -> {
          Map<Long, TaskStatus> found = new HashMap<>();
          rows.forEach(r -> found.put(r.getLong("task_id"), TaskStatus.valueOf(r.getString("status"))));
          List<Long> missing = new ArrayList<>();
          for (long p : parents) {
            if (!found.containsKey(p)) {
              missing.add(p);
            }
          }
          if (!missing.isEmpty()) {
            return Future.failedFuture(new UnknownParents(missing));
          }
          DependencyGate.Verdict v = DependencyGate.decide(t.status(), found);
          return insertOn(conn, t.withIdAndStatus(t.taskId(), v.status()), childIds, v.waitingOn(), v.error())
              .compose(ins -> ins.duplicate() ? Future.succeededFuture(ins)
                  : conn.preparedQuery(INSERT_DEPENDENCIES.text())
                      .execute(INSERT_DEPENDENCIES.params().set("parents", boxed).set("child", t.taskId()).tuple())
                      .compose(d -> v.status() != TaskStatus.SKIPPED ? Future.succeededFuture()
                          : conn.preparedQuery(ALERT_SKIPPED.text()).execute(ALERT_SKIPPED.params()
                              .set("tenant", t.tenantId()).set("id", t.taskId()).set("detail", v.error()).tuple()))
                      .map(d -> new Inserted(ins.task().withDependsOn(sorted(parents)), null, ins.shardIds())));
        });
  }

  private static List<Long> sorted(long[] ids) {
    return java.util.Arrays.stream(ids).sorted().boxed().toList();
  }

  /** The task row and, when sharded, its shards (the caller provides the transaction for those). */
  private Future<Inserted> insertOn(SqlClient client, NewTask t, long[] childIds, Integer waitingOn, String error) {
    Tuple params = INSERT.params()
        .set("id", t.taskId()).set("tenant", t.tenantId()).set("api_key", t.apiKey()).set("task_type", t.taskType())
        .set("trigger", Times.toTimestamp(t.triggerTimeMs())).set("status", t.status().name())
        .set("priority", (short) t.priority()).set("max_retry", (short) t.maxRetry()).set("timeout_ms", t.timeoutMs())
        .set("callback_url", t.callbackUrl()).set("processor", t.processor()).set("payload", t.payloadJson())
        .set("biz_key", t.bizKey()).set("shard_total", t.shardTotal())
        .set("waiting_on", waitingOn == null ? null : waitingOn.shortValue()).set("error", error)
        .set("notify_url", t.notifyUrl()).set("fingerprint", t.fingerprint()).tuple();
    return client.preparedQuery(INSERT.text()).execute(params).compose(rows -> {
      if (rows.rowCount() != 1 || childIds.length == 0) {
        return Future.succeededFuture(rows);
      }
      return client.preparedQuery(INSERT_SHARDS.text()).execute(shardsOf(t.taskId(), childIds)).map(rows);
    }).compose(rows -> inserted(client, t, rows))
        .map(ins -> ins.duplicate() ? ins : new Inserted(ins.task(), null, childIds));
  }

  private Future<Inserted> inserted(SqlClient client, NewTask t, RowSet<Row> rows) {
    if (rows.rowCount() == 1) {
      return Future.succeededFuture(new Inserted(toRecord(rows.iterator().next()), null));
    }
    // Lost a biz_key or fingerprint race (or a repeat): the existing task is the answer.
    return existing(client, t);
  }

  /**
   * Inserts unsharded tasks, in one statement when no fingerprint repeats among them (else one per
   * round of {@link FingerprintRounds}); the answers are in the order of {@code batch}.
   *
   * <p>With fingerprints, in up to two transactions. The first locks the gates no one else holds
   * ({@code SKIP LOCKED}) and inserts the tasks whose gates it got (and those without a fingerprint).
   * The second, only when some gates were busy, waits for them (in slot order) and inserts the rest.
   * A busy gate is nearly always an unrelated fingerprint of a concurrent batch (65 536 gates, 1000
   * fingerprints per batch), so waiting for all of them up front would make concurrent batches run
   * one after another; this way they insert side by side and only the few tasks behind a busy gate
   * wait. The first transaction never waits for a gate, so the two cannot deadlock with anyone. If the
   * second fails, the future fails although the first committed: a retried batch is answered with the
   * committed tasks as duplicates (fingerprint), as for any 5xx.
   */
  public Future<List<Inserted>> insertMany(List<NewTask> batch) {
    requireUnsharded("insertMany", batch);
    List<java.util.UUID> fingerprints = fingerprintsOf(batch);
    java.util.Map<Long, TaskRecord> inserted = new java.util.HashMap<>();
    Future<java.util.Map<Long, TaskRecord>> stored = fingerprints.isEmpty()
        ? insertRound(pool, INSERT_MANY, batch, inserted)
        : pool.withTransaction(conn -> lockFreeGates(conn, fingerprints).compose(free -> {
          List<NewTask> now = new ArrayList<>();
          List<NewTask> later = new ArrayList<>();
          for (NewTask t : batch) {
            (t.fingerprint() == null || free.contains(FingerprintGates.of(t.fingerprint())) ? now : later).add(t);
          }
          return insertRounds(conn, now, inserted).map(later);
        })).compose(later -> later.isEmpty() ? Future.succeededFuture(inserted)
            : pool.withTransaction(conn -> lockGates(conn, fingerprintsOf(later))
                .compose(v -> insertRounds(conn, later, inserted))));
    return stored.compose(done -> answers(batch, done));
  }

  /**
   * Inserts a few unsharded tasks in one autocommit statement, each checked against the fingerprint rule
   * as a lone insert is (see {@link #INSERT_GROUP}); the answers are in the order of {@code group}.
   */
  public Future<List<Inserted>> insertGroup(List<NewTask> group) {
    requireUnsharded("insertGroup", group);
    return insertRound(pool, INSERT_GROUP, group, new java.util.HashMap<>()).compose(done -> answers(group, done));
  }

  private static void requireUnsharded(String method, List<NewTask> tasks) {
    for (NewTask t : tasks) {
      if (t.shardTotal() != 1) {
        throw new IllegalArgumentException(method + " takes unsharded tasks only");
      }
    }
  }

  /**
   * Each of {@code tasks}, in order: the row inserted for it, else the existing task it duplicated (all of
   * those looked up together, see {@link #existing(SqlClient, List)}).
   */
  private Future<List<Inserted>> answers(List<NewTask> tasks, java.util.Map<Long, TaskRecord> inserted) {
    List<NewTask> skipped = new ArrayList<>();
    for (NewTask t : tasks) {
      if (!inserted.containsKey(t.taskId())) {
        skipped.add(t);
      }
    }
    Future<List<Inserted>> duplicates = skipped.isEmpty() ? Future.succeededFuture(List.of()) : existing(pool, skipped);
    return duplicates.map(found -> {
      java.util.Iterator<Inserted> next = found.iterator();
      List<Inserted> list = new ArrayList<>(tasks.size());
      for (NewTask t : tasks) {
        TaskRecord rec = inserted.get(t.taskId());
        list.add(rec != null ? new Inserted(rec, null) : next.next());
      }
      return list;
    });
  }

  private static List<java.util.UUID> fingerprintsOf(List<NewTask> tasks) {
    List<java.util.UUID> fingerprints = new ArrayList<>();
    tasks.forEach(t -> {
      if (t.fingerprint() != null) {
        fingerprints.add(t.fingerprint());
      }
    });
    return fingerprints;
  }

  /** {@code tasks} in rounds of {@link FingerprintRounds}, one statement each, on {@code conn}. */
  private static Future<java.util.Map<Long, TaskRecord>> insertRounds(SqlClient conn, List<NewTask> tasks,
                                                                      java.util.Map<Long, TaskRecord> into) {
    Future<java.util.Map<Long, TaskRecord>> rounds = Future.succeededFuture(into);
    for (List<NewTask> round : FingerprintRounds.of(tasks)) {
      rounds = rounds.compose(m -> insertRound(conn, INSERT_MANY, round, m));
    }
    return rounds;
  }

  /** Locks the gates of {@code fingerprints} that no one holds (see LOCK_FREE_GATES); answers their slots. */
  private static Future<java.util.Set<Integer>> lockFreeGates(SqlClient conn, List<java.util.UUID> fingerprints) {
    return conn.preparedQuery(LOCK_FREE_GATES.text())
        .execute(LOCK_FREE_GATES.params().set("fingerprints", fingerprints.toArray(new java.util.UUID[0])).tuple())
        .map(rows -> {
          java.util.Set<Integer> slots = new java.util.HashSet<>();
          rows.forEach(r -> slots.add(r.getInteger(0)));
          return slots;
        });
  }

  /** Locks the gates of {@code fingerprints} until the transaction of {@code conn} ends (see LOCK_GATES). */
  private static Future<Void> lockGates(SqlClient conn, java.util.Collection<java.util.UUID> fingerprints) {
    return conn.preparedQuery(LOCK_GATES.text())
        .execute(LOCK_GATES.params().set("fingerprints", fingerprints.toArray(new java.util.UUID[0])).tuple())
        .mapEmpty();
  }

  /** One INSERT_MANY or INSERT_GROUP statement; adds the rows it inserted to {@code into}, by task id. */
  private static Future<java.util.Map<Long, TaskRecord>> insertRound(SqlClient client, Sql insert,
                                                                     List<NewTask> round,
                                                                     java.util.Map<Long, TaskRecord> into) {
    int n = round.size();
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
    String[] notifyUrls = new String[n];
    java.util.UUID[] fingerprints = new java.util.UUID[n];
    for (int i = 0; i < n; i++) {
      NewTask t = round.get(i);
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
      notifyUrls[i] = t.notifyUrl();
      fingerprints[i] = t.fingerprint();
    }
    Tuple params = insert.params().set("ids", ids).set("tenants", tenants).set("api_keys", keys)
        .set("task_types", types).set("triggers", triggers).set("statuses", statuses).set("priorities", priorities)
        .set("max_retries", maxRetries).set("timeouts", timeouts).set("callback_urls", callbacks)
        .set("processors", processors).set("payloads", payloads).set("biz_keys", bizKeys)
        .set("notify_urls", notifyUrls).set("fingerprints", fingerprints).tuple();
    java.util.Map<Long, NewTask> byId = new java.util.HashMap<>();
    round.forEach(t -> byId.put(t.taskId(), t));
    return client.preparedQuery(insert.text()).execute(params).map(rows -> {
      // the rows are what was sent plus the defaults: only the id and the insert time are read back
      for (Row r : rows) {
        into.put(r.getLong(0), byId.get(r.getLong(0)).asInserted(r.getOffsetDateTime(1)));
      }
      return into;
    });
  }

  /** The task {@code t} duplicated (its insert was skipped); see {@link #existing(SqlClient, List)}. */
  private Future<Inserted> existing(SqlClient client, NewTask t) {
    return existing(client, List.of(t)).map(found -> found.get(0));
  }

  /**
   * The tasks {@code skipped} duplicated (their inserts were skipped), in order: each one's biz_key holder,
   * else the task its fingerprint collided with. Two statements at most, whatever their number. Read on the
   * inserting connection, so an earlier item of the same transaction is found. Fails if one has neither (a
   * conflict no stored task explains).
   */
  private Future<List<Inserted>> existing(SqlClient client, List<NewTask> skipped) {
    Inserted[] found = new Inserted[skipped.size()];
    List<Integer> withKey = new ArrayList<>();
    for (int i = 0; i < skipped.size(); i++) {
      if (skipped.get(i).bizKey() != null) {
        withKey.add(i);
      }
    }
    return findHolders(client, skipped, withKey, DuplicateReason.BIZ_KEY, found).compose(v -> {
      List<Integer> withFingerprint = new ArrayList<>();
      for (int i = 0; i < skipped.size(); i++) {
        if (found[i] == null && skipped.get(i).fingerprint() != null) {
          withFingerprint.add(i);
        }
      }
      return findHolders(client, skipped, withFingerprint, DuplicateReason.FINGERPRINT, found);
    }).compose(v -> {
      for (int i = 0; i < found.length; i++) {
        if (found[i] == null) {
          return Future.failedFuture(conflictWithoutHolder(skipped.get(i)));
        }
      }
      return Future.succeededFuture(List.of(found));
    });
  }

  /**
   * Looks up the holders, by biz_key (FIND_BY_BIZ_KEYS) or by fingerprint (FIND_BY_FINGERPRINTS) as
   * {@code reason} says, of the tasks of {@code skipped} at {@code positions}, and puts each one found at its
   * task's place in {@code found}.
   */
  private static Future<Void> findHolders(SqlClient client, List<NewTask> skipped, List<Integer> positions,
                                          DuplicateReason reason, Inserted[] found) {
    if (positions.isEmpty()) {
      return Future.succeededFuture();
    }
    int n = positions.size();
    String[] tenants = new String[n];
    String[] types = new String[n];
    String[] bizKeys = new String[n];
    java.util.UUID[] fingerprints = new java.util.UUID[n];
    java.time.OffsetDateTime[] triggers = new java.time.OffsetDateTime[n];
    for (int k = 0; k < n; k++) {
      NewTask t = skipped.get(positions.get(k));
      tenants[k] = t.tenantId();
      types[k] = t.taskType();
      bizKeys[k] = t.bizKey();
      fingerprints[k] = t.fingerprint();
      triggers[k] = Times.toTimestamp(t.triggerTimeMs());
    }
    Sql lookup = reason == DuplicateReason.BIZ_KEY ? FIND_BY_BIZ_KEYS : FIND_BY_FINGERPRINTS;
    Sql.Params params = lookup.params().set("tenants", tenants);
    if (reason == DuplicateReason.BIZ_KEY) {
      params.set("task_types", types).set("biz_keys", bizKeys);
    } else {
      params.set("fingerprints", fingerprints).set("triggers", triggers);
    }
    return client.preparedQuery(lookup.text()).execute(params.tuple()).map(rows -> {
      for (Row r : rows) {
        found[positions.get((int) (r.getLong("wanted") - 1))] = new Inserted(toRecord(r), reason);
      }
      return null;
    });
  }

  private static IllegalStateException conflictWithoutHolder(NewTask t) {
    return new IllegalStateException("insert of task " + t.taskId() + " conflicted but no task holds its biz_key "
        + t.bizKey() + " or fingerprint " + t.fingerprint());
  }

  /**
   * Fails the task unless it already finished; answers it as it ends up (empty: no such task).
   */
  public Future<Optional<TaskRecord>> failUnfinished(String tenantId, long taskId, String error) {
    return pool.preparedQuery(FAIL_UNFINISHED.text()).execute(FAIL_UNFINISHED.params().set("id", taskId)
        .set("tenant", tenantId).set("error", error).tuple()).map(TaskStore::single);
  }

  public Future<Optional<TaskRecord>> find(String tenantId, long taskId) {
    return pool.preparedQuery(FIND.text()).execute(FIND.params().set("id", taskId).set("tenant", tenantId).tuple())
        .map(TaskStore::single);
  }

  /** Outcome of a cancel: CANCELLED now, or the current status that forbids it, or not found. */
  public record CancelOutcome(boolean cancelled, Optional<TaskStatus> currentStatus) {
  }

  public Future<CancelOutcome> cancel(String tenantId, long taskId) {
    String[] from = TaskStateMachine.sources(TaskStatus.CANCELLED).stream().map(Enum::name).toArray(String[]::new);
    return pool.preparedQuery(CANCEL.text()).execute(CANCEL.params().set("id", taskId).set("tenant", tenantId)
        .set("from", from).tuple()).compose(rows -> {
      if (rows.rowCount() == 1) {
        return Future.succeededFuture(new CancelOutcome(true, Optional.of(TaskStatus.CANCELLED)));
      }
      if (rows.rowCount() > 1) {
        return Future.failedFuture(new IllegalStateException("cancel matched " + rows.rowCount() + " rows"));
      }
      return find(tenantId, taskId).map(t -> new CancelOutcome(false, t.map(TaskRecord::status)));
    });
  }

  /** Where a page of {@link #list} ends: the last task's created_at (microseconds) and id. */
  public record ListPosition(OffsetDateTime createdAt, long taskId) {
  }

  /**
   * Up to {@code limit} of the tenant's tasks, newest first, that come after {@code after} (null: from
   * the newest), optionally only of one status and one type.
   */
  public Future<List<TaskRecord>> list(String tenantId, TaskStatus status, String taskType, ListPosition after,
                                       int limit) {
    return list(tenantId, status, taskType, null, after, limit);
  }

  /** As {@link #list(String, TaskStatus, String, ListPosition, int)}, optionally only one schedule's occurrences. */
  public Future<List<TaskRecord>> list(String tenantId, TaskStatus status, String taskType, Long scheduleId,
                                       ListPosition after, int limit) {
    return list(tenantId, status, taskType, scheduleId, null, after, limit);
  }

  /**
   * As {@link #list(String, TaskStatus, String, Long, ListPosition, int)}, optionally only the task of one
   * {@code bizKey}, which needs {@code taskType} (the key is unique per tenant and type).
   */
  public Future<List<TaskRecord>> list(String tenantId, TaskStatus status, String taskType, Long scheduleId,
                                       String bizKey, ListPosition after, int limit) {
    if (bizKey != null && taskType == null) {
      throw new IllegalArgumentException("a biz_key is looked up with its task_type");
    }
    Sql statement = bizKey == null ? LIST : LIST_BY_BIZ_KEY;
    Sql.Params p = statement.params().set("tenant", tenantId).set("status", status == null ? null : status.name())
        .set("task_type", taskType).set("schedule_id", scheduleId).set("after_created", after == null ? null : after.createdAt())
        .set("after_id", after == null ? null : after.taskId()).set("limit", limit);
    if (bizKey != null) {
      p.set("biz_key", bizKey);
    }
    Tuple params = p.tuple();
    return pool.preparedQuery(statement.text()).execute(params).map(rows -> {
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
        r.getString("processor"), r.getString("payload"), r.getString("biz_key"), r.getInteger("shard_total"),
        r.getString("last_run_node"), r.getString("result"), r.getString("error"),
        r.getOffsetDateTime("created_at"), r.getOffsetDateTime("updated_at"),
        r.getOffsetDateTime("started_at"), r.getOffsetDateTime("finished_at"), r.getLong("schedule_id"),
        r.getOffsetDateTime("scheduled_time"), dependsOn(r), r.getString("notify_url"), r.getBoolean("dedupe"));
  }

  /** The parents, where the statement read them ({@link #READ_COLUMNS}); none otherwise. */
  private static List<Long> dependsOn(Row r) {
    if (r.getColumnIndex("depends_on") < 0 || r.getValue("depends_on") == null) {
      return List.of();
    }
    return List.of(r.getArrayOfLongs("depends_on"));
  }
}
