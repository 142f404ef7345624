package ax.store;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;

/** Reads the database clock, the reference for "due" and for every deadline. */
public final class DbTimeStore {
  private final Pool pool;

  public DbTimeStore(Pool pool) {
    this.pool = pool;
  }

  /** Database time in epoch microseconds (PostgreSQL's resolution), truncated. */
  public Future<Long> nowMicros() {
    return pool.query("SELECT floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint AS now_us").execute()
        .map(rows -> rows.iterator().next().getLong("now_us"));
  }

  /** Database time in epoch milliseconds, truncated. */
  public Future<Long> nowMillis() {
    return nowMicros().map(us -> Math.floorDiv(us, 1_000L));
  }
}
