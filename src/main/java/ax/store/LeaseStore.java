package ax.store;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

import java.util.Optional;

/**
 * The leader lease protocol. A term is (holder, epoch). Acquire succeeds only when no one holds an
 * unexpired lease, and always increments the epoch; renew and resign act only on one's own term.
 * Expiry is judged on the database clock, never on a node's clock.
 */
public final class LeaseStore {

  private static final String ACQUIRE = """
      INSERT INTO leases (name, holder, epoch, expires_at, acquired_at)
      VALUES ($1, $2, 1, now() + $3 * interval '1 millisecond', now())
      ON CONFLICT (name) DO UPDATE
         SET holder = EXCLUDED.holder, epoch = leases.epoch + 1,
             expires_at = EXCLUDED.expires_at, acquired_at = EXCLUDED.acquired_at
       WHERE leases.expires_at < now()
      RETURNING epoch""";

  private static final String RENEW = """
      UPDATE leases SET expires_at = now() + $4 * interval '1 millisecond'
       WHERE name = $1 AND holder = $2 AND epoch = $3 AND expires_at > now()""";

  private static final String RESIGN = """
      UPDATE leases SET expires_at = now() - interval '1 millisecond'
       WHERE name = $1 AND holder = $2 AND epoch = $3""";

  private final Pool pool;

  public LeaseStore(Pool pool) {
    this.pool = pool;
  }

  /** The new epoch when this holder won the lease, empty when someone else holds it. */
  public Future<Optional<Long>> tryAcquire(String name, String holder, long ttlMs) {
    return pool.preparedQuery(ACQUIRE).execute(Tuple.of(name, holder, ttlMs)).map(rows ->
        rows.rowCount() == 1 ? Optional.of(rows.iterator().next().getLong("epoch")) : Optional.empty());
  }

  /** True when our term is still ours and now extended. */
  public Future<Boolean> renew(String name, String holder, long epoch, long ttlMs) {
    return pool.preparedQuery(RENEW).execute(Tuple.of(name, holder, epoch, ttlMs)).map(rows -> {
      if (rows.rowCount() > 1) {
        throw new IllegalStateException("lease renew matched " + rows.rowCount() + " rows");
      }
      return rows.rowCount() == 1;
    });
  }

  /** Ends our term at once so a successor need not wait for the TTL. */
  public Future<Boolean> resign(String name, String holder, long epoch) {
    return pool.preparedQuery(RESIGN).execute(Tuple.of(name, holder, epoch)).map(rows -> rows.rowCount() == 1);
  }
}
