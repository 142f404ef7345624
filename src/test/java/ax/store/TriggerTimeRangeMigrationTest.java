package ax.store;

import ax.task.TaskRecord;
import ax.task.TaskStatus;
import ax.testing.TestPostgres;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Pool;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 10, finding 1: rows with a trigger time the client cannot decode (stored by versions before V6)
 * are settled FAILED and readable again after the migration, and the database refuses new ones.
 */
class TriggerTimeRangeMigrationTest {
  private static final String POISONED = """
      INSERT INTO tasks (task_id, tenant_id, api_key, task_type, trigger_time, next_trigger_time, status, callback_url)
      VALUES (%d, 'tenant-a', 'key-a', 'p', '%s', '%s', 'READY', 'http://127.0.0.1:9/hook')""";

  @Test
  void poisonedRowsBecomeReadableFailedTasksAndNewOnesAreRefused() throws Exception {
    try (TestPostgres pg = TestPostgres.create()) {
      Flyway.configure().dataSource(pg.jdbcUrl(), pg.user(), pg.password()).locations("classpath:db/migration")
          .target("5").load().migrate();
      try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password());
           Statement s = c.createStatement()) {
        s.execute(POISONED.formatted(1, "4714-11-24 00:00:00+00 BC", "4714-11-24 00:00:00+00 BC"));
        s.execute(POISONED.formatted(2, "12000-01-01 00:00:00+00", "12000-01-01 00:00:00+00"));
        s.execute(POISONED.formatted(3, "2026-12-01 20:00:00+00", "2026-12-01 20:00:00+00"));
      }

      PgConnectOptions o = Database.connectOptions(pg.url());
      Database.migrate(o);

      Vertx vertx = Vertx.vertx();
      Pool pool = Database.pool(vertx, o, 2);
      try {
        TaskStore tasks = new TaskStore(pool);
        for (long id : new long[] {1, 2}) {
          TaskRecord r = tasks.find("tenant-a", id).await()
              .orElseThrow();
          assertEquals(TaskStatus.FAILED, r.status(), "task " + id);
          assertEquals(0, r.triggerTime().toInstant().toEpochMilli(), "task " + id);
          assertTrue(r.error().contains("outside what ax can schedule"), r.error());
        }
        TaskRecord untouched = tasks.find("tenant-a", 3L).await().orElseThrow();
        assertEquals(TaskStatus.READY, untouched.status());

        PgException refused = assertThrows(PgException.class, () -> pool.query(POISONED.formatted(4,
            "0044-03-15 00:00:00+00 BC", "0044-03-15 00:00:00+00 BC")).execute().await());
        assertEquals("23514", refused.getSqlState());
        assertTrue(StoreErrors.isRefusedValue(refused));
      } finally {
        pool.close().await();
        vertx.close().await();
      }
    }
  }
}
