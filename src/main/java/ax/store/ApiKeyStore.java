package ax.store;

import ax.admin.SecretSealer;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Access keys of the signed API, as the request path and outgoing signing read them. Secrets are
 * opened here (sealed with AX_MASTER_KEY, see {@link SecretSealer}) so callers only ever hold them in
 * clear in memory. Administration's writes are {@link AdminStore}'s.
 */
public final class ApiKeyStore {
  private static final Logger LOG = Logger.getLogger(ApiKeyStore.class.getName());

  /** The PostgreSQL channel every change of a key is announced on, in the transaction of the change. */
  public static final String CHANGES_CHANNEL = "ax_key_changes";

  /**
   * @param secret              the current secret, in clear
   * @param previousSecret      the secret before the last rotation while its grace lasts, else null
   * @param previousValidUntil  epoch ms the previous secret is accepted until (0 when there is none)
   * @param acceptsRequests     false for a disabled or deleted key: it is refused, but the calls of the
   *                            tasks it submitted are still signed with its secret
   */
  public record ApiKey(String accessKey, String secret, String tenantId, String rateLimit, String previousSecret,
                       long previousValidUntil, boolean acceptsRequests) {
    public ApiKey(String accessKey, String secret, String tenantId, String rateLimit) {
      this(accessKey, secret, tenantId, rateLimit, null, 0, true);
    }

    /** The previous secret if it is still accepted at {@code nowMillis}. */
    public Optional<String> previousSecretAt(long nowMillis) {
      return previousSecret != null && nowMillis < previousValidUntil ? Optional.of(previousSecret) : Optional.empty();
    }

    @Override
    public String toString() { // never the secrets: records end up in log lines
      return "ApiKey[" + accessKey + ", tenant " + tenantId + (acceptsRequests ? "" : ", refused") + "]";
    }
  }

  private static final String FIND = """
      SELECT access_key, secret, tenant_id, rate_limit, previous_secret, previous_valid_until,
             NOT disabled AND deleted_at IS NULL AS accepts
        FROM api_keys WHERE access_key = $1""";

  /** AX_BOOTSTRAP_KEY: created or updated (and re-enabled) at start, its tenant created if missing. */
  private static final String UPSERT = """
      WITH tenant AS (
        INSERT INTO tenants (tenant_id, name) SELECT $3, $3 WHERE $3 ~ '^[A-Za-z0-9._:-]{1,64}$'
        ON CONFLICT DO NOTHING)
      INSERT INTO api_keys (access_key, secret, tenant_id) VALUES ($1, $2, $3)
      ON CONFLICT (access_key) DO UPDATE SET secret = EXCLUDED.secret, tenant_id = EXCLUDED.tenant_id,
                                            disabled = false, deleted_at = NULL
      RETURNING pg_notify('""" + CHANGES_CHANNEL + "', access_key)";

  private static final String ALL_SECRETS = "SELECT access_key, secret, previous_secret FROM api_keys";

  /** Compare-and-set: a secret rotated meanwhile is left for the next start. */
  private static final String SEAL = """
      UPDATE api_keys SET secret = $4, previous_secret = $5
       WHERE access_key = $1 AND secret = $2 AND previous_secret IS NOT DISTINCT FROM $3""";

  private final Pool pool;
  private final SecretSealer sealer;

  /** @param sealer opens and seals secrets; null when AX_MASTER_KEY is not set (secrets in clear) */
  public ApiKeyStore(Pool pool, SecretSealer sealer) {
    this.pool = pool;
    this.sealer = sealer;
  }

  /** The key whatever its state (see {@link ApiKey#acceptsRequests()}); empty when no such key was ever made. */
  public Future<Optional<ApiKey>> find(String accessKey) {
    return pool.preparedQuery(FIND).execute(Tuple.of(accessKey)).map(rows -> {
      if (rows.rowCount() == 0) {
        return Optional.empty();
      }
      Row r = rows.iterator().next();
      OffsetDateTime until = r.getOffsetDateTime("previous_valid_until");
      return Optional.of(new ApiKey(r.getString("access_key"), open(accessKey, r.getString("secret")),
          r.getString("tenant_id"), r.getString("rate_limit"),
          r.getString("previous_secret") == null ? null : open(accessKey, r.getString("previous_secret")),
          until == null ? 0 : Times.toMillis(until), r.getBoolean("accepts")));
    });
  }

  public Future<Void> upsert(String accessKey, String secret, String tenantId) {
    return pool.preparedQuery(UPSERT).execute(Tuple.of(accessKey, seal(accessKey, secret), tenantId)).mapEmpty();
  }

  /**
   * With a master key, seals every secret not yet sealed under it: stored in clear (keys made before
   * AX_MASTER_KEY was set) or sealed under AX_MASTER_KEY_PREVIOUS (the master key was changed). Without
   * one, says how many are in clear. Returns how many keys it resealed.
   */
  public Future<Integer> resealSecrets() {
    return pool.query(ALL_SECRETS).execute().compose(rows -> {
      Future<Integer> resealed = Future.succeededFuture(0);
      int plain = 0;
      for (Row r : rows) {
        String ak = r.getString("access_key");
        String secret = r.getString("secret");
        String previous = r.getString("previous_secret");
        boolean inClear = !SecretSealer.isSealed(secret) || (previous != null && !SecretSealer.isSealed(previous));
        plain += inClear ? 1 : 0;
        if (sealer == null || (sealer.sealedUnderCurrentKey(ak, secret)
            && (previous == null || sealer.sealedUnderCurrentKey(ak, previous)))) {
          continue;
        }
        Tuple t;
        try {
          t = Tuple.of(ak, secret, previous, seal(ak, open(ak, secret)), previous == null ? null : seal(ak, open(ak, previous)));
        } catch (IllegalArgumentException e) {
          LOG.warning(e.getMessage() + "; left as it is (requests with this key fail until it is rotated)");
          continue;
        }
        resealed = resealed.compose(n -> pool.preparedQuery(SEAL).execute(t).map(u -> n + u.rowCount()));
      }
      if (sealer == null && plain > 0) {
        LOG.warning(plain + " access-key secrets are stored in clear; set AX_MASTER_KEY to encrypt them");
      }
      return resealed.onSuccess(n -> {
        if (n > 0) {
          LOG.info("sealed the secrets of " + n + " access keys under AX_MASTER_KEY");
        }
      });
    });
  }

  /** The form a secret is stored in: sealed with the master key when there is one. */
  String seal(String accessKey, String secret) {
    return sealer == null ? secret : sealer.seal(accessKey, secret);
  }

  private String open(String accessKey, String stored) {
    if (!SecretSealer.isSealed(stored)) {
      return stored;
    }
    if (sealer == null) {
      throw new IllegalStateException("the secret of key " + accessKey + " is encrypted and AX_MASTER_KEY is not set");
    }
    return sealer.open(accessKey, stored);
  }
}
