package ax.store;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Administration's writes and reads: tenants, access keys, the audit record. Every change is one
 * statement that makes the change, writes its audit row and announces it on
 * {@link ApiKeyStore#CHANGES_CHANNEL} — so a change is recorded if and only if it happened, and nodes
 * hear of it only once it is committed. Secrets arrive here in clear and are sealed by the
 * {@link ApiKeyStore} (with AX_MASTER_KEY) before they are written; none is ever read back or audited.
 */
public final class AdminStore implements AutoCloseable {

  /** Who acts, from where: written into the audit row of the change. */
  public record Actor(String name, String remote) {
  }

  public record Tenant(String tenantId, String name, long createdAt, int activeKeys) {
  }

  /** A key as administration sees it: never its secret. {@code previousValidUntil} 0 = no grace. */
  public record KeyInfo(String accessKey, String tenantId, String rateLimit, boolean disabled, long createdAt,
                        long rotatedAt, long previousValidUntil) {
  }

  public record AuditEntry(long auditId, long at, String actor, String action, String target, JsonObject detail,
                           String remote) {
  }

  /** A new key's one showing of its secret. */
  public record CreatedKey(String accessKey, String secret, String tenantId, long createdAt) {
  }

  public record RotatedKey(String accessKey, String secret, long previousValidUntil) {
  }

  /** Thrown (as a failed future) when a key is created for a tenant that does not exist. */
  public static final class UnknownTenant extends RuntimeException {
    public UnknownTenant(String tenantId) {
      super("no tenant " + tenantId + "; create it first");
    }
  }

  private static final String NOTIFY = "pg_notify('" + ApiKeyStore.CHANGES_CHANNEL + "', target)";

  private static final String CREATE_TENANT = """
      WITH t AS (INSERT INTO tenants (tenant_id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING
                 RETURNING tenant_id, name, created_at),
           a AS (INSERT INTO admin_audit (actor, action, target, detail, remote)
                 SELECT $3::text, 'tenant.create', tenant_id, jsonb_build_object('name', name), $4::text FROM t RETURNING target)
      SELECT t.created_at FROM t, a""";

  private static final String LIST_TENANTS = """
      SELECT t.tenant_id, t.name, t.created_at,
             (SELECT count(*) FROM api_keys k WHERE k.tenant_id = t.tenant_id AND NOT k.disabled
                AND k.deleted_at IS NULL) AS active_keys
        FROM tenants t ORDER BY t.tenant_id LIMIT $1""";

  private static final String CREATE_KEY = """
      WITH k AS (INSERT INTO api_keys (access_key, secret, tenant_id, rate_limit)
                 SELECT $1::text, $2::text, tenant_id, $3::text FROM tenants WHERE tenant_id = $4
                 RETURNING access_key, tenant_id, rate_limit, created_at),
           a AS (INSERT INTO admin_audit (actor, action, target, detail, remote)
                 SELECT $5::text, 'key.create', access_key, jsonb_build_object('tenant_id', tenant_id, 'rate_limit', rate_limit),
                        $6::text FROM k RETURNING target)
      SELECT k.created_at, """ + NOTIFY + " FROM k, a";

  private static final String KEY_COLUMNS = """
      access_key, tenant_id, rate_limit, disabled, created_at, rotated_at,
      CASE WHEN previous_valid_until > now() THEN previous_valid_until END AS previous_valid_until""";

  private static final String LIST_KEYS = "SELECT " + KEY_COLUMNS + """
       FROM api_keys WHERE deleted_at IS NULL AND ($1::text IS NULL OR tenant_id = $1)
      ORDER BY tenant_id, access_key LIMIT $2""";

  /** The old secret stays valid for $3 seconds (none when 0); SET sees the row as it was. */
  private static final String ROTATE = """
      WITH k AS (UPDATE api_keys SET secret = $2, rotated_at = now(),
                        previous_secret = CASE WHEN $3::bigint > 0 THEN secret END,
                        previous_valid_until = CASE WHEN $3::bigint > 0 THEN now() + $3::bigint * interval '1 second' END
                  WHERE access_key = $1 AND deleted_at IS NULL
                  RETURNING access_key, tenant_id, previous_valid_until),
           a AS (INSERT INTO admin_audit (actor, action, target, detail, remote)
                 SELECT $4::text, 'key.rotate', access_key, jsonb_build_object('tenant_id', tenant_id, 'grace_s', $3::bigint), $5::text
                   FROM k RETURNING target)
      SELECT k.previous_valid_until, """ + NOTIFY + " FROM k, a";

  private static final String SET_STATE = """
      WITH k AS (UPDATE api_keys SET disabled = $2::boolean, deleted_at = CASE WHEN $3::boolean THEN now() END
                  WHERE access_key = $1 AND deleted_at IS NULL
                  RETURNING access_key, tenant_id),
           a AS (INSERT INTO admin_audit (actor, action, target, detail, remote)
                 SELECT $4::text, $5::text, access_key, jsonb_build_object('tenant_id', tenant_id), $6::text FROM k RETURNING target)
      SELECT\s""" + NOTIFY + " FROM a";

  private static final String AUDIT = """
      SELECT audit_id, at, actor, action, target, detail, remote FROM admin_audit
       WHERE audit_id < $1 ORDER BY audit_id DESC LIMIT $2""";

  private final Pool pool;
  private final ApiKeyStore keys;
  private final boolean ownsPool;

  public AdminStore(Pool pool, ApiKeyStore keys) {
    this(pool, keys, false);
  }

  private AdminStore(Pool pool, ApiKeyStore keys, boolean ownsPool) {
    this.pool = pool;
    this.keys = keys;
    this.ownsPool = ownsPool;
  }

  /**
   * For the command line, outside any node: brings the schema at {@code pgUrl} up to date and opens a
   * small pool of its own, closed by {@link #close()}.
   *
   * @param sealer seals new secrets (AX_MASTER_KEY); null = none
   */
  public static AdminStore standalone(io.vertx.core.Vertx vertx, String pgUrl, ax.admin.SecretSealer sealer) {
    io.vertx.pgclient.PgConnectOptions pg = Database.connectOptions(pgUrl);
    Database.migrate(pg);
    Pool pool = Database.pool(vertx, pg, 2);
    return new AdminStore(pool, new ApiKeyStore(pool, sealer), true);
  }

  @Override
  public void close() {
    if (ownsPool) {
      pool.close().await();
    }
  }

  /** Empty when a tenant with this id exists already. */
  public Future<Optional<Tenant>> createTenant(String tenantId, String name, Actor actor) {
    return pool.preparedQuery(CREATE_TENANT).execute(Tuple.of(tenantId, name, actor.name(), actor.remote()))
        .map(rows -> rows.rowCount() == 0 ? Optional.empty()
            : Optional.of(new Tenant(tenantId, name, millis(rows.iterator().next(), "created_at"), 0)));
  }

  public Future<List<Tenant>> tenants(int limit) {
    return pool.preparedQuery(LIST_TENANTS).execute(Tuple.of((long) limit)).map(rows -> {
      List<Tenant> out = new ArrayList<>();
      for (Row r : rows) {
        out.add(new Tenant(r.getString("tenant_id"), r.getString("name"), millis(r, "created_at"),
            r.getLong("active_keys").intValue()));
      }
      return out;
    });
  }

  /** Fails with {@link UnknownTenant} when the tenant does not exist. */
  public Future<CreatedKey> createKey(String accessKey, String secret, String tenantId, String rateLimit,
                                      Actor actor) {
    return pool.preparedQuery(CREATE_KEY)
        .execute(Tuple.of(accessKey, keys.seal(accessKey, secret), rateLimit, tenantId, actor.name(), actor.remote()))
        .compose(rows -> rows.rowCount() == 0 ? Future.failedFuture(new UnknownTenant(tenantId))
            : Future.succeededFuture(new CreatedKey(accessKey, secret, tenantId, millis(rows.iterator().next(),
            "created_at"))));
  }

  /** Keys not deleted, of one tenant or (tenantId null) of all. */
  public Future<List<KeyInfo>> keys(String tenantId, int limit) {
    return pool.preparedQuery(LIST_KEYS).execute(Tuple.of(tenantId, (long) limit)).map(AdminStore::keyInfos);
  }

  /** Empty when there is no such key (or it was deleted). */
  public Future<Optional<RotatedKey>> rotate(String accessKey, String newSecret, long graceSeconds, Actor actor) {
    return pool.preparedQuery(ROTATE)
        .execute(Tuple.of(accessKey, keys.seal(accessKey, newSecret), graceSeconds, actor.name(), actor.remote()))
        .map(rows -> rows.rowCount() == 0 ? Optional.empty()
            : Optional.of(new RotatedKey(accessKey, newSecret, millis(rows.iterator().next(), "previous_valid_until"))));
  }

  /** False when there is no such key (or it was deleted). */
  public Future<Boolean> disable(String accessKey, Actor actor) {
    return setState(accessKey, true, false, "key.disable", actor);
  }

  public Future<Boolean> enable(String accessKey, Actor actor) {
    return setState(accessKey, false, false, "key.enable", actor);
  }

  /** Refused from now on and no longer listed; the row keeps signing the calls of tasks it submitted. */
  public Future<Boolean> delete(String accessKey, Actor actor) {
    return setState(accessKey, true, true, "key.delete", actor);
  }

  /** The newest entries first, older than {@code beforeId}. */
  public Future<List<AuditEntry>> audit(long beforeId, int limit) {
    return pool.preparedQuery(AUDIT).execute(Tuple.of(beforeId, (long) limit)).map(rows -> {
      List<AuditEntry> out = new ArrayList<>();
      for (Row r : rows) {
        Object detail = r.getValue("detail");
        out.add(new AuditEntry(r.getLong("audit_id"), millis(r, "at"), r.getString("actor"), r.getString("action"),
            r.getString("target"), detail instanceof JsonObject j ? j : new JsonObject(), r.getString("remote")));
      }
      return out;
    });
  }

  private Future<Boolean> setState(String accessKey, boolean disabled, boolean deleted, String action, Actor actor) {
    return pool.preparedQuery(SET_STATE)
        .execute(Tuple.of(accessKey, disabled, deleted, actor.name(), action, actor.remote()))
        .map(rows -> rows.rowCount() > 0);
  }

  private static List<KeyInfo> keyInfos(RowSet<Row> rows) {
    List<KeyInfo> out = new ArrayList<>();
    for (Row r : rows) {
      out.add(new KeyInfo(r.getString("access_key"), r.getString("tenant_id"), r.getString("rate_limit"),
          r.getBoolean("disabled"), millis(r, "created_at"), millis(r, "rotated_at"), millis(r, "previous_valid_until")));
    }
    return out;
  }

  /** 0 for a null timestamp. */
  private static long millis(Row r, String column) {
    OffsetDateTime t = r.getOffsetDateTime(column);
    return t == null ? 0 : Times.toMillis(t);
  }
}
