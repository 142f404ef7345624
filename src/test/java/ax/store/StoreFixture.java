package ax.store;

import ax.task.NewTask;
import ax.task.TaskStatus;
import ax.testing.TestPostgres;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;

import java.util.concurrent.atomic.AtomicLong;

/** A migrated database of its own plus a pool, for store tests against the real PostgreSQL. */
final class StoreFixture implements AutoCloseable {
  private static final AtomicLong IDS = new AtomicLong(1_000);

  final TestPostgres pg = TestPostgres.create();
  final Vertx vertx = Vertx.vertx();
  final Pool pool;

  StoreFixture() {
    PgConnectOptions o = Database.connectOptions(pg.url());
    Database.migrate(o);
    pool = Database.pool(vertx, o, 4);
  }

  long dbNow() {
    return new DbTimeStore(pool).nowMillis().await();
  }

  static NewTask httpTask(long triggerMs, TaskStatus status) {
    return new NewTask(IDS.incrementAndGet(), "tenant-a", "key-a", "coupon.grant", triggerMs, status, 5, 2, 60_000,
        "http://127.0.0.1:9/hook", null, "{\"user\":42}", null);
  }

  static NewTask processorTask(long triggerMs, TaskStatus status) {
    return new NewTask(IDS.incrementAndGet(), "tenant-a", "key-a", "report.build", triggerMs, status, 5, 2, 60_000,
        null, "reports", null, null);
  }

  @Override
  public void close() {
    pool.close().await();
    vertx.close().await();
    pg.close();
  }
}
