package ax.store;

import ax.alert.AlertNotice;
import ax.alert.AlertRules;
import ax.alert.AlertStatus;
import ax.alert.AlertTracker;
import ax.alert.Severity;
import ax.leader.Fence;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Built-in alerting's tables (V14): the state of every alert, the outbox of its messages, the delivery
 * baton; and the reads its rules need (the lease row, dependency-skip events). Transitions are
 * conditional statements whose row count says who won: an episode starts once and ends once whichever
 * node judges it, and its message is queued by the same statement.
 */
public final class AlertStore {
  /** The leader's transitions are fenced by its term; "no leader" is judged by any node, unfenced. */
  private static final String UNFENCED = "lease AS (SELECT 0::bigint AS epoch)";

  private static final String FIRE = """
      WITH %s, s AS (
        INSERT INTO alert_state AS a (rule, key, episode, status, severity, summary, labels, value, started_at)
        SELECT :rule, :key, 1, 'FIRING', :severity, :summary, :labels::jsonb, :value::float8, :started_at FROM lease
        ON CONFLICT (rule, key) DO UPDATE
           SET episode = a.episode + 1, status = 'FIRING', severity = EXCLUDED.severity, summary = EXCLUDED.summary,
               labels = EXCLUDED.labels, value = EXCLUDED.value, started_at = EXCLUDED.started_at, resolved_at = NULL
         WHERE a.status <> 'FIRING'
        RETURNING a.rule, a.key, a.episode, a.severity, a.summary, a.labels, a.value, a.started_at
      ), n AS (
        INSERT INTO alert_notifications (rule, key, episode, status, severity, summary, labels, value, started_at)
        SELECT rule, key, episode, 'FIRING', severity, summary, labels, value, started_at FROM s
        ON CONFLICT DO NOTHING
      )
      SELECT episode FROM s""";
  private static final Sql FIRE_FENCED = Sql.of(FIRE.formatted(Sql.LEASE));
  private static final Sql FIRE_ANY = Sql.of(FIRE.formatted(UNFENCED));

  private static final String RESOLVE = """
      WITH %s, s AS (
        UPDATE alert_state a SET status = 'RESOLVED', resolved_at = now(), value = coalesce(:value::float8, a.value)
          FROM lease
         WHERE a.rule = :rule AND a.key = :key AND a.status = 'FIRING'
        RETURNING a.rule, a.key, a.episode, a.severity, a.summary, a.labels, a.value, a.started_at, a.resolved_at
      ), n AS (
        INSERT INTO alert_notifications (rule, key, episode, status, severity, summary, labels, value, started_at,
                                         resolved_at)
        SELECT rule, key, episode, 'RESOLVED', severity, summary, labels, value, started_at, resolved_at FROM s
        ON CONFLICT DO NOTHING
      )
      SELECT episode FROM s""";
  private static final Sql RESOLVE_FENCED = Sql.of(RESOLVE.formatted(Sql.LEASE));
  private static final Sql RESOLVE_ANY = Sql.of(RESOLVE.formatted(UNFENCED));

  private static final Sql FIRING = Sql.of("SELECT rule, key, started_at, value FROM alert_state WHERE status = 'FIRING'");

  /** Whether any node holds the lease now (the lease row by its primary key). */
  private static final Sql LEASE_LIVE = Sql.of(
      "SELECT EXISTS (SELECT 1 FROM leases WHERE name = :lease AND expires_at > now()) AS live");

  /** Dependency skips of the look-back, per tenant (index alert_events_created). */
  private static final Sql SKIPS = Sql.of("""
      SELECT tenant_id, count(*) AS n, (array_agg(task_id ORDER BY event_id DESC))[1:5] AS ids,
             (array_agg(detail ORDER BY event_id DESC))[1] AS detail
        FROM alert_events
       WHERE kind = 'task_skipped' AND created_at > now() - :lookback_ms * interval '1 millisecond'
       GROUP BY tenant_id""");

  /** The tenant's skip events named by a firing message: delivered (V10's column). */
  private static final Sql SKIPS_ANNOUNCED = Sql.of("""
      UPDATE alert_events SET delivered_at = now()
       WHERE delivered_at IS NULL AND kind = 'task_skipped' AND tenant_id = :tenant""");

  /**
   * Takes (or keeps) the delivery baton and, only if it did, claims the messages to send and the
   * suppressed ones not yet summarised, for one try.
   */
  private static final Sql CLAIM = Sql.of("""
      WITH baton AS (
        UPDATE alert_delivery SET holder = :holder, held_until = now() + :hold_ms * interval '1 millisecond'
         WHERE id = 1 AND (held_until < now() OR holder = :holder)
        RETURNING id
      ), due AS (
        SELECT n.rule, n.key, n.episode, n.status FROM alert_notifications n, baton
         WHERE (n.state = 'PENDING' OR (n.state = 'SUPPRESSED' AND NOT n.reported)) AND n.next_attempt_at <= now()
           AND (n.claimed_until IS NULL OR n.claimed_until < now())
         ORDER BY n.next_attempt_at, n.created_at
         LIMIT :limit
           FOR UPDATE OF n SKIP LOCKED
      )
      UPDATE alert_notifications n SET claimed_until = now() + :hold_ms * interval '1 millisecond'
        FROM due
       WHERE n.rule = due.rule AND n.key = due.key AND n.episode = due.episode AND n.status = due.status
      RETURNING n.rule, n.key, n.episode, n.status, n.severity, n.summary, n.labels::text AS labels, n.value,
                n.started_at, n.resolved_at, n.state, n.tries""");

  private static final Sql SENT_LAST_MINUTE = Sql.of(
      "SELECT count(*) AS n FROM alert_notifications WHERE state = 'SENT' AND finished_at > now() - interval '1 minute'");

  private static final String PK = "rule = :rule AND key = :key AND episode = :episode AND status = :status";

  private static final Sql SENT = Sql.of("""
      UPDATE alert_notifications SET state = 'SENT', tries = tries + 1, finished_at = now(), claimed_until = NULL,
             last_error = NULL
       WHERE %s AND state = 'PENDING'""".formatted(PK));

  private static final Sql FAILED = Sql.of("""
      UPDATE alert_notifications SET tries = tries + 1, last_error = :error, claimed_until = NULL,
             state = CASE WHEN tries + 1 >= :max_tries THEN 'FAILED' ELSE 'PENDING' END,
             finished_at = CASE WHEN tries + 1 >= :max_tries THEN now() END,
             next_attempt_at = now() + :retry_after_ms * interval '1 millisecond'
       WHERE %s AND state = 'PENDING'
      RETURNING state""".formatted(PK));

  private static final Sql SUPPRESSED = Sql.of("""
      UPDATE alert_notifications SET state = 'SUPPRESSED', claimed_until = NULL, finished_at = now()
       WHERE %s AND state = 'PENDING'""".formatted(PK));

  /** The suppressed messages a summary mentioned, and the summary itself recorded as sent (it counts). */
  private static final Sql SUMMARISED = Sql.of("""
      WITH r AS (
        UPDATE alert_notifications n SET reported = true, claimed_until = NULL
          FROM unnest(:rules::text[], :keys::text[], :episodes::int[], :statuses::text[]) AS v(rule, key, episode, status)
         WHERE n.rule = v.rule AND n.key = v.key AND n.episode = v.episode AND n.status = v.status
           AND n.state = 'SUPPRESSED' AND NOT n.reported
        RETURNING 1
      )
      INSERT INTO alert_notifications (rule, key, episode, status, severity, summary, value, started_at, state,
                                       reported, tries, finished_at)
      SELECT 'AxAlertsSuppressed', :key, 1, 'FIRING', 'P3', :summary, :value, :started_at, 'SENT', true, 1, now()
       WHERE EXISTS (SELECT 1 FROM r)""");

  /** One alert message claimed for one try; {@code suppressed}: claimed to be summarised, not sent. */
  public record Claimed(String rule, String key, int episode, AlertNotice notice, boolean suppressed, int tries) {
  }

  /** An alert PostgreSQL says is firing. */
  public record Firing(String rule, String key, long startedAtMs, Double value) {
  }

  private final Pool pool;

  public AlertStore(Pool pool) {
    this.pool = pool;
  }

  /**
   * Starts an episode unless the alert is already firing (in the leader's term when {@code fence} is
   * given). True when this call started it and queued its message.
   */
  public Future<Boolean> fire(Fence fence, AlertTracker.Fire f) {
    Sql sql = fence == null ? FIRE_ANY : FIRE_FENCED;
    Sql.Params p = sql.params().set("rule", f.rule().alertName()).set("key", f.key())
        .set("severity", f.rule().severity().name()).set("summary", f.sample().summary())
        .set("labels", new JsonObject(new HashMap<>(f.sample().labels())))
        .set("value", finite(f.sample().value())).set("started_at", Times.toTimestamp(f.startedAtMs()));
    if (fence != null) {
      p.fence(fence);
    }
    return pool.preparedQuery(sql.text()).execute(p.tuple()).map(rs -> oneOrNone(rs, "fire"));
  }

  /** Ends the episode if it is firing. True when this call ended it and queued its message. */
  public Future<Boolean> resolve(Fence fence, AlertTracker.Resolve r) {
    Sql sql = fence == null ? RESOLVE_ANY : RESOLVE_FENCED;
    Sql.Params p = sql.params().set("rule", r.rule().alertName()).set("key", r.key())
        .set("value", r.lastValue() == null ? null : finite(r.lastValue()));
    if (fence != null) {
      p.fence(fence);
    }
    return pool.preparedQuery(sql.text()).execute(p.tuple()).map(rs -> oneOrNone(rs, "resolve"));
  }

  private static boolean oneOrNone(RowSet<Row> rs, String what) {
    if (rs.rowCount() > 1) {
      throw new IllegalStateException(what + " changed " + rs.rowCount() + " alert rows; expected at most 1");
    }
    return rs.rowCount() == 1;
  }

  private static Double finite(double v) {
    return Double.isFinite(v) ? v : null;
  }

  public Future<List<Firing>> firing() {
    return pool.query(FIRING.text()).execute().map(rs -> {
      List<Firing> out = new ArrayList<>();
      for (Row r : rs) {
        out.add(new Firing(r.getString("rule"), r.getString("key"), Times.toMillis(r.getOffsetDateTime("started_at")),
            r.getDouble("value")));
      }
      return out;
    });
  }

  public Future<Boolean> leaseLive(String lease) {
    return pool.preparedQuery(LEASE_LIVE.text()).execute(LEASE_LIVE.params().set("lease", lease).tuple())
        .map(rs -> rs.iterator().next().getBoolean("live"));
  }

  public Future<List<AlertRules.Skips>> skips(long lookbackMs) {
    return pool.preparedQuery(SKIPS.text()).execute(SKIPS.params().set("lookback_ms", lookbackMs).tuple()).map(rs -> {
      List<AlertRules.Skips> out = new ArrayList<>();
      for (Row r : rs) {
        out.add(new AlertRules.Skips(r.getString("tenant_id"), r.getLong("n"), List.of(r.getArrayOfLongs("ids")),
            r.getString("detail")));
      }
      return out;
    });
  }

  public Future<Integer> markSkipsAnnounced(String tenant) {
    return pool.preparedQuery(SKIPS_ANNOUNCED.text()).execute(SKIPS_ANNOUNCED.params().set("tenant", tenant).tuple())
        .map(RowSet::rowCount);
  }

  /**
   * Claims up to {@code limit} messages for one try, if {@code holder} holds (or takes) the delivery
   * baton; empty when another node delivers now.
   */
  public Future<List<Claimed>> claim(String holder, int limit, long holdMs) {
    return pool.preparedQuery(CLAIM.text())
        .execute(CLAIM.params().set("holder", holder).set("limit", limit).set("hold_ms", holdMs).tuple())
        .map(rs -> {
          List<Claimed> out = new ArrayList<>();
          for (Row r : rs) {
            out.add(claimed(r));
          }
          out.sort(java.util.Comparator.comparing((Claimed c) -> c.notice().status() == AlertStatus.RESOLVED
              ? c.notice().resolvedAtMs() : c.notice().startedAtMs()));
          return out;
        });
  }

  private static Claimed claimed(Row r) {
    AlertStatus status = AlertStatus.valueOf(r.getString("status"));
    OffsetDateTime resolved = r.getOffsetDateTime("resolved_at");
    Map<String, String> labels = new HashMap<>();
    new JsonObject(r.getString("labels")).forEach(e -> labels.put(e.getKey(), String.valueOf(e.getValue())));
    AlertNotice n = new AlertNotice(r.getString("rule"), Severity.valueOf(r.getString("severity")), status,
        r.getString("summary"), labels, r.getDouble("value"), Times.toMillis(r.getOffsetDateTime("started_at")),
        resolved == null ? null : Times.toMillis(resolved));
    return new Claimed(r.getString("rule"), r.getString("key"), r.getInteger("episode"), n,
        "SUPPRESSED".equals(r.getString("state")), r.getInteger("tries"));
  }

  public Future<Integer> sentLastMinute() {
    return pool.query(SENT_LAST_MINUTE.text()).execute().map(rs -> rs.iterator().next().getLong("n").intValue());
  }

  private static Sql.Params pk(Sql sql, Claimed c) {
    return sql.params().set("rule", c.rule()).set("key", c.key()).set("episode", c.episode())
        .set("status", c.notice().status().name());
  }

  public Future<Boolean> sent(Claimed c) {
    return pool.preparedQuery(SENT.text()).execute(pk(SENT, c).tuple()).map(rs -> oneOrNone(rs, "sent"));
  }

  /** A failed try: due again after {@code retryAfterMs}, or FAILED for good at {@code maxTries}. True = given up. */
  public Future<Boolean> failed(Claimed c, String error, int maxTries, long retryAfterMs) {
    return pool.preparedQuery(FAILED.text()).execute(pk(FAILED, c).set("error", error).set("max_tries", maxTries)
            .set("retry_after_ms", retryAfterMs).tuple())
        .map(rs -> rs.rowCount() == 1 && "FAILED".equals(rs.iterator().next().getString("state")));
  }

  public Future<Boolean> suppressed(Claimed c) {
    return pool.preparedQuery(SUPPRESSED.text()).execute(pk(SUPPRESSED, c).tuple()).map(rs -> oneOrNone(rs, "suppress"));
  }

  /** {@code mentioned} were reported by {@code summary}, which was posted (and now counts as sent). */
  public Future<Integer> summarised(List<Claimed> mentioned, AlertNotice summary, String summaryKey) {
    return pool.preparedQuery(SUMMARISED.text()).execute(SUMMARISED.params()
            .set("rules", mentioned.stream().map(Claimed::rule).toArray(String[]::new))
            .set("keys", mentioned.stream().map(Claimed::key).toArray(String[]::new))
            .set("episodes", mentioned.stream().map(Claimed::episode).toArray(Integer[]::new))
            .set("statuses", mentioned.stream().map(c -> c.notice().status().name()).toArray(String[]::new))
            .set("key", summaryKey).set("summary", summary.summary()).set("value", summary.value())
            .set("started_at", Times.toTimestamp(summary.startedAtMs())).tuple())
        .map(RowSet::rowCount);
  }
}
