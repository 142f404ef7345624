package ax.store;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

import java.time.OffsetDateTime;

import java.util.Optional;

/**
 * The leader lease protocol. A term is (holder, epoch). Acquire succeeds only when no one holds an
 * unexpired lease, and always increments the epoch; renew and resign act only on one's own term.
 * Expiry is judged on the database clock, never on a node's clock. Every term is recorded in
 * {@code lease_terms} with the cluster member that holds it, so a successor can tell whether the holder
 * of an older term has left the cluster.
 */
public final class LeaseStore {
  /** The one lease today: the whole task space. Partitions will each have their own. */
  public static final String SCHEDULER = "scheduler";

  private static final Sql ACQUIRE = Sql.of("""
      WITH won AS (
        INSERT INTO leases (name, holder, epoch, expires_at, acquired_at)
        VALUES (:lease, :holder, 1, now() + :ttl_ms * interval '1 millisecond', now())
        ON CONFLICT (name) DO UPDATE
           SET holder = EXCLUDED.holder, epoch = leases.epoch + 1,
               expires_at = EXCLUDED.expires_at, acquired_at = EXCLUDED.acquired_at
         WHERE leases.expires_at < now()
        RETURNING epoch
      ), recorded AS (
        INSERT INTO lease_terms (name, epoch, holder, member)
        SELECT :lease, epoch, :holder, :member FROM won
        ON CONFLICT (name, epoch) DO NOTHING
      )
      SELECT epoch FROM won""");

  private static final Sql RENEW = Sql.of("""
      UPDATE leases SET expires_at = now() + :ttl_ms * interval '1 millisecond'
       WHERE name = :lease AND holder = :holder AND epoch = :epoch AND expires_at > now()""");

  private static final Sql RESIGN = Sql.of("""
      UPDATE leases SET expires_at = now() - interval '1 millisecond'
       WHERE name = :lease AND holder = :holder AND epoch = :epoch""");

  private static final Sql CURRENT = Sql.of("""
      SELECT holder, epoch, expires_at, acquired_at, expires_at > now() AS held FROM leases WHERE name = :lease""");

  private final Pool pool;

  public LeaseStore(Pool pool) {
    this.pool = pool;
  }

  /**
   * The new epoch when this holder won the lease, empty when someone else holds it.
   *
   * @param member the holder's cluster member id, null when the node is not clustered
   */
  public Future<Optional<Long>> tryAcquire(String lease, String holder, String member, long ttlMs) {
    return pool.preparedQuery(ACQUIRE.text()).execute(ACQUIRE.params().set("lease", lease).set("holder", holder)
            .set("member", member).set("ttl_ms", ttlMs).tuple())
        .map(rows -> rows.rowCount() == 1 ? Optional.of(rows.iterator().next().getLong("epoch")) : Optional.empty());
  }

  /** True when our term is still ours and now extended. */
  public Future<Boolean> renew(String lease, String holder, long epoch, long ttlMs) {
    return pool.preparedQuery(RENEW.text()).execute(RENEW.params().set("lease", lease).set("holder", holder)
        .set("epoch", epoch).set("ttl_ms", ttlMs).tuple()).map(rows -> {
          if (rows.rowCount() > 1) {
            throw new IllegalStateException("lease renew matched " + rows.rowCount() + " rows");
          }
          return rows.rowCount() == 1;
        });
  }

  /** A lease row as the database holds it now, for operators (the console, {@code /health?detail=true}). */
  public record Held(String holder, long epoch, OffsetDateTime expiresAt, OffsetDateTime acquiredAt, boolean held) {
  }

  /** The lease's row, empty when no node ever held it. Read-only: it decides nothing. */
  public Future<Optional<Held>> current(String lease) {
    return pool.preparedQuery(CURRENT.text()).execute(CURRENT.params().set("lease", lease).tuple()).map(rows -> {
      if (rows.rowCount() == 0) {
        return Optional.empty();
      }
      Row r = rows.iterator().next();
      return Optional.of(new Held(r.getString("holder"), r.getLong("epoch"), r.getOffsetDateTime("expires_at"),
          r.getOffsetDateTime("acquired_at"), r.getBoolean("held")));
    });
  }

  /** Ends our term at once so a successor need not wait for the TTL. */
  public Future<Boolean> resign(String lease, String holder, long epoch) {
    return pool.preparedQuery(RESIGN.text()).execute(RESIGN.params().set("lease", lease).set("holder", holder)
        .set("epoch", epoch).tuple()).map(rows -> rows.rowCount() == 1);
  }
}
