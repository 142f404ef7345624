package ax.store;

import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import org.flywaydb.core.Flyway;

/**
 * Connects to PostgreSQL: runs the versioned migrations (blocking JDBC, once, before any verticle is
 * deployed) and builds the shared reactive pool all stores use.
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

  public static void migrate(PgConnectOptions o) {
    String jdbc = "jdbc:postgresql://" + o.getHost() + ":" + o.getPort() + "/" + o.getDatabase();
    Flyway.configure()
        .dataSource(jdbc, o.getUser(), o.getPassword() == null ? "" : o.getPassword())
        .locations("classpath:db/migration")
        .connectRetries(0)
        .load()
        .migrate();
  }

  public static Pool pool(Vertx vertx, PgConnectOptions o, int maxSize) {
    return PgBuilder.pool()
        .with(new PoolOptions().setMaxSize(maxSize).setMaxWaitQueueSize(10_000))
        .connectingTo(o)
        .using(vertx)
        .build();
  }
}
