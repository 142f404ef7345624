package ax.verticles;

import ax.bus.LocalCodec;
import ax.leader.LeaderTerm;
import ax.store.AdminStore;
import ax.store.ApiKeyStore;
import ax.store.Database;
import ax.store.LeaseStore;
import ax.testing.TestPostgres;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;

/**
 * What every verticle test starts from: a fresh database of its own (unique name, dropped on close),
 * migrated, a small pool on the test's Vert.x, and the event-bus codecs the verticles send with.
 */
final class VerticleDatabase implements AutoCloseable {
  private static final AdminStore.Actor CLI = new AdminStore.Actor("cli:test", null);

  final PgConnectOptions options;
  final Pool pool;
  private final TestPostgres pg;

  private VerticleDatabase(TestPostgres pg, PgConnectOptions options, Pool pool) {
    this.pg = pg;
    this.options = options;
    this.pool = pool;
  }

  static VerticleDatabase create(Vertx vertx) {
    TestPostgres pg = TestPostgres.create();
    PgConnectOptions options = Database.connectOptions(pg.url());
    Database.migrate(options);
    LocalCodec.registerAll(vertx);
    return new VerticleDatabase(pg, options, Database.pool(vertx, options, 4));
  }

  /** A tenant and one API key of it, created as the CLI would; returns the admin store that made them. */
  AdminStore tenantWithKey(String tenant, String accessKey, String secret) {
    AdminStore admin = new AdminStore(pool, new ApiKeyStore(pool, null));
    admin.createTenant(tenant, tenant, CLI).await();
    admin.createKey(accessKey, secret, tenant, null, CLI).await();
    return admin;
  }

  /** Takes the scheduler lease for {@code owner}: the term a leader's verticles are told about. */
  LeaderTerm leadScheduler(String owner) {
    long epoch = new LeaseStore(pool).tryAcquire(LeaseStore.SCHEDULER, owner, null, 30_000).await().orElseThrow();
    return LeaderTerm.leading(LeaseStore.SCHEDULER, owner, epoch);
  }

  @Override
  public void close() {
    pool.close().await();
    pg.close();
  }
}
