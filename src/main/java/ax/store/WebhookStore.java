package ax.store;

import ax.leader.Fence;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The webhook outbox (V11): notifications written by the terminal transition itself, claimed by the
 * leader for one try at a time, and the record of every try.
 */
public final class WebhookStore {
  /** At most this many tries per notification (API.md). */
  public static final int MAX_TRIES = 3;

  /**
   * Pending notifications that are due and not claimed (or whose claim ran out: its deliverer died),
   * claimed for {@code :hold_ms} under the lease, with what the body needs from the (terminal, hence
   * unchanging) task. {@code try} is the try this claim makes.
   */
  private static final Sql CLAIM = Sql.of("""
      WITH %s, due AS (
        SELECT n.task_id FROM task_notifications n
         WHERE n.state = 'PENDING' AND n.next_attempt_at <= now()
           AND (n.claimed_until IS NULL OR n.claimed_until < now())
         ORDER BY n.next_attempt_at
         LIMIT :limit
           FOR UPDATE SKIP LOCKED
      ), claimed AS (
        UPDATE task_notifications n
           SET claimed_until = now() + :hold_ms * interval '1 millisecond', epoch = lease.epoch
          FROM due, lease
         WHERE n.task_id = due.task_id
        RETURNING n.task_id, n.tries + 1 AS try, n.status, lease.epoch
      )
      SELECT c.task_id, c.try, c.epoch, c.status, t.api_key, t.task_type, t.notify_url, t.result::text AS result,
             t.error, t.attempt, t.finished_at, t.traceparent
        FROM claimed c JOIN tasks t ON t.task_id = c.task_id""".formatted(Sql.LEASE));

  /**
   * The tries' outcomes, in one statement: each applies only to the claim it belongs to (same try, same
   * epoch, still pending), and is recorded once. A failed try before the last is due again after its
   * backoff; the last one fails the notification for good.
   */
  private static final Sql FINISH = Sql.of("""
      WITH v AS (
        SELECT * FROM unnest(:ids::bigint[], :tries::int[], :epochs::bigint[], :delivered::boolean[],
                             :http_statuses::int[], :errors::text[], :started::timestamptz[], :retry_after_ms::bigint[])
                 AS v(task_id, try, epoch, delivered, http_status, error, started_at, retry_after_ms)
      ), done AS (
        UPDATE task_notifications n SET
          tries           = v.try,
          claimed_until   = NULL,
          state           = CASE WHEN v.delivered THEN 'DELIVERED' WHEN v.try >= %1$d THEN 'FAILED' ELSE 'PENDING' END,
          next_attempt_at = CASE WHEN v.delivered OR v.try >= %1$d THEN n.next_attempt_at
                                 ELSE now() + v.retry_after_ms * interval '1 millisecond' END,
          finished_at     = CASE WHEN v.delivered OR v.try >= %1$d THEN now() END
          FROM v
         WHERE n.task_id = v.task_id AND n.tries = v.try - 1 AND n.epoch = v.epoch AND n.state = 'PENDING'
        RETURNING n.task_id, n.state
      ), logged AS (
        INSERT INTO notification_attempts (task_id, try, node_id, started_at, finished_at, http_status, outcome, error)
        SELECT v.task_id, v.try, :node, v.started_at, now(), v.http_status,
               CASE WHEN v.delivered THEN 'DELIVERED' ELSE 'FAILED' END, v.error
          FROM v JOIN done d ON d.task_id = v.task_id
        ON CONFLICT (task_id, try) DO NOTHING
      )
      SELECT task_id, state FROM done""".formatted(MAX_TRIES));

  private static final Sql BACKLOG = Sql.of("SELECT count(*) AS n FROM task_notifications WHERE state = 'PENDING'");

  /** Tenant-scoped through the task: no row when it is not theirs. */
  private static final Sql LIST = Sql.of("""
      SELECT t.notify_url, n.state, n.tries, n.next_attempt_at, a.try, a.node_id, a.started_at, a.finished_at,
             a.http_status, a.outcome, a.error
        FROM tasks t
        LEFT JOIN task_notifications n ON n.task_id = t.task_id
        LEFT JOIN notification_attempts a ON a.task_id = t.task_id
       WHERE t.task_id = :id AND t.tenant_id = :tenant
       ORDER BY a.try""");

  private final Pool pool;
  private final String nodeId;

  public WebhookStore(Pool pool, String nodeId) {
    this.pool = pool;
    this.nodeId = nodeId;
  }

  /** One claimed try: what to send and what the outcome must name to be applied. */
  public record Claimed(long taskId, int tryNumber, long epoch, String status, String apiKey, String taskType,
                        String notifyUrl, String resultJson, String error, int attempts, OffsetDateTime finishedAt,
                        String traceparent) {
  }

  /**
   * Claims up to {@code limit} due notifications for {@code holdMs} (longer than a try can take, so a
   * try never outlives its claim). Nothing without the lease.
   */
  public Future<List<Claimed>> claim(Fence fence, int limit, long holdMs) {
    return pool.preparedQuery(CLAIM.text()).execute(CLAIM.params().fence(fence).set("limit", limit)
        .set("hold_ms", holdMs).tuple()).map(rows -> {
          List<Claimed> out = new ArrayList<>(rows.rowCount());
          for (Row r : rows) {
            out.add(new Claimed(r.getLong("task_id"), r.getInteger("try"), r.getLong("epoch"), r.getString("status"),
                r.getString("api_key"), r.getString("task_type"), r.getString("notify_url"), r.getString("result"),
                r.getString("error"), r.getInteger("attempt"), r.getOffsetDateTime("finished_at"),
                r.getString("traceparent")));
          }
          return out;
        });
  }

  /** How one try ended. {@code httpStatus} null when no response came; {@code retryAfterMs} if it failed. */
  public record Outcome(Claimed claim, boolean delivered, Integer httpStatus, String error, OffsetDateTime startedAt,
                        long retryAfterMs) {
  }

  /** Writes the outcomes (and their attempt rows); answers how many applied. */
  public Future<Integer> finish(List<Outcome> outcomes) {
    int n = outcomes.size();
    Long[] ids = new Long[n];
    Integer[] tries = new Integer[n];
    Long[] epochs = new Long[n];
    Boolean[] delivered = new Boolean[n];
    Integer[] statuses = new Integer[n];
    String[] errors = new String[n];
    OffsetDateTime[] started = new OffsetDateTime[n];
    Long[] retryAfter = new Long[n];
    for (int i = 0; i < n; i++) {
      Outcome o = outcomes.get(i);
      ids[i] = o.claim().taskId();
      tries[i] = o.claim().tryNumber();
      epochs[i] = o.claim().epoch();
      delivered[i] = o.delivered();
      statuses[i] = o.httpStatus();
      errors[i] = o.error();
      started[i] = o.startedAt();
      retryAfter[i] = o.retryAfterMs();
    }
    return pool.preparedQuery(FINISH.text()).execute(FINISH.params().set("ids", ids).set("tries", tries)
        .set("epochs", epochs).set("delivered", delivered).set("http_statuses", statuses).set("errors", errors)
        .set("started", started).set("retry_after_ms", retryAfter).set("node", nodeId).tuple())
        .map(rows -> rows.rowCount());
  }

  public Future<Long> backlog() {
    return pool.query(BACKLOG.text()).execute().map(rows -> rows.iterator().next().getLong("n"));
  }

  /** One recorded try, as the API shows it. */
  public record Attempt(int tryNumber, String nodeId, OffsetDateTime startedAt, OffsetDateTime finishedAt,
                        Integer httpStatus, String outcome, String error) {
  }

  /**
   * A task's webhook: its URL (null: none), the notification's state (null: not terminal yet, or no
   * URL), and every recorded try.
   */
  public record Notifications(String notifyUrl, String state, int tries, OffsetDateTime nextAttemptAt,
                              List<Attempt> attempts) {
  }

  /** Empty when the tenant has no such task. */
  public Future<Optional<Notifications>> list(String tenantId, long taskId) {
    return pool.preparedQuery(LIST.text()).execute(LIST.params().set("id", taskId).set("tenant", tenantId).tuple())
        .map(rows -> {
          if (rows.rowCount() == 0) {
            return Optional.empty();
          }
          List<Attempt> attempts = new ArrayList<>();
          Row first = null;
          for (Row r : rows) {
            first = first == null ? r : first;
            if (r.getInteger("try") != null) {
              attempts.add(new Attempt(r.getInteger("try"), r.getString("node_id"), r.getOffsetDateTime("started_at"),
                  r.getOffsetDateTime("finished_at"), r.getInteger("http_status"), r.getString("outcome"),
                  r.getString("error")));
            }
          }
          String state = first.getString("state");
          return Optional.of(new Notifications(first.getString("notify_url"), state,
              state == null ? 0 : first.getInteger("tries"),
              "PENDING".equals(state) ? first.getOffsetDateTime("next_attempt_at") : null, attempts));
        });
  }
}
