package ax.store;

import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Connects to PostgreSQL: runs the versioned migrations (blocking JDBC, once, before any verticle is
 * deployed) and builds the shared reactive pool the stores use, and a small one for the control round
 * trips (leases, the database clock) that must not queue behind them.
 */
public final class Database {
  private Database() {
  }

  /** Parses {@code postgresql://user[:pw]@host:port/db}; a malformed URL fails with a clear message. */
  public static PgConnectOptions connectOptions(String url) {
    try {
      PgConnectOptions o = PgConnectOptions.fromUri(url);
      return o.setCachePreparedStatements(true).setPipeliningLimit(64);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("AX_PG_URL is not a valid postgresql:// URL: " + e.getMessage(), e);
    }
  }

  /**
   * Brings the schema up to date; returns one line saying where it stands, for the node's log (Flyway's
   * own line per migration is held back, see ax.logging.QuietLoggers).
   */
  public static String migrate(PgConnectOptions o) {
    String jdbc = "jdbc:postgresql://" + o.getHost() + ":" + o.getPort() + "/" + o.getDatabase();
    MigrateResult result = Flyway.configure()
        .dataSource(jdbc, o.getUser(), o.getPassword() == null ? "" : o.getPassword())
        .locations("classpath:db/migration")
        .connectRetries(0)
        .load()
        .migrate();
    // With nothing to apply, Flyway leaves the target version unset: the schema is where it was.
    String version = result.targetSchemaVersion != null ? result.targetSchemaVersion : result.initialSchemaVersion;
    return "PostgreSQL " + o.getHost() + ":" + o.getPort() + "/" + o.getDatabase() + ": schema at version "
        + version + " (" + result.migrationsExecuted + " migrations applied now)";
  }

  /**
   * The pools' names: the {@code pool_name} of Vert.x's pool meters ({@code vertx_pool_*}), which would
   * otherwise count both pools as one, "__vertx.DEFAULT". Not shared pools: a name alone shares nothing.
   */
  public static final String DATA_POOL = "ax-data";
  public static final String CONTROL_POOL = "ax-control";

  /**
   * Two connections for the node's control round trips — the leader lease, the node slot lease, the
   * database clock — apart from the {@link #pool} the data path queues on. A burst queues thousands of
   * claims and outcome writes there (up to 10 000 waiting); a lease renewal behind them went unconfirmed
   * for a whole TTL, and the leader stepped down in the middle of its first burst (bench `failover`,
   * 2026-12-03: 1 600 tasks it had claimed waited 90 s for the recovery scan). Each round trip here is
   * one short statement, so two connections never queue long; a small wait queue is enough.
   */
  public static Pool controlPool(Vertx vertx, PgConnectOptions o) {
    return PgBuilder.pool()
        .with(new PoolOptions().setMaxSize(2).setMaxWaitQueueSize(64).setName(CONTROL_POOL))
        .connectingTo(o)
        .using(vertx)
        .build();
  }

  public static Pool pool(Vertx vertx, PgConnectOptions o, int maxSize) {
    return PgBuilder.pool()
        .with(new PoolOptions().setMaxSize(maxSize).setMaxWaitQueueSize(10_000).setName(DATA_POOL))
        .connectingTo(o)
        .using(vertx)
        .build();
  }
}
