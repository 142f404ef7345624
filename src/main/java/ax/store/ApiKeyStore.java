package ax.store;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

import java.util.Optional;

/** Access keys of the signed API. */
public final class ApiKeyStore {

  public record ApiKey(String accessKey, String secret, String tenantId, String rateLimit) {
  }

  private static final String FIND = """
      SELECT access_key, secret, tenant_id, rate_limit FROM api_keys
       WHERE access_key = $1 AND NOT disabled""";

  private static final String UPSERT = """
      INSERT INTO api_keys (access_key, secret, tenant_id) VALUES ($1, $2, $3)
      ON CONFLICT (access_key) DO UPDATE SET secret = EXCLUDED.secret, tenant_id = EXCLUDED.tenant_id,
                                            disabled = false""";

  private final Pool pool;

  public ApiKeyStore(Pool pool) {
    this.pool = pool;
  }

  public Future<Optional<ApiKey>> find(String accessKey) {
    return pool.preparedQuery(FIND).execute(Tuple.of(accessKey)).map(rows -> {
      if (rows.rowCount() == 0) {
        return Optional.empty();
      }
      var r = rows.iterator().next();
      return Optional.of(new ApiKey(r.getString("access_key"), r.getString("secret"),
          r.getString("tenant_id"), r.getString("rate_limit")));
    });
  }

  public Future<Void> upsert(String accessKey, String secret, String tenantId) {
    return pool.preparedQuery(UPSERT).execute(Tuple.of(accessKey, secret, tenantId)).mapEmpty();
  }
}
