package ax.bench.peers;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.SchedulableInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * db-scheduler 16.7.1 as a user chasing latency and throughput would run it on PostgreSQL: the official
 * schema, the lock-and-fetch polling strategy ({@code UPDATE … FOR UPDATE SKIP LOCKED … RETURNING}, one
 * round trip per batch), a 100 ms polling interval instead of the default 10 s, 16 executor threads,
 * a HikariCP pool. One {@code Tasks.oneTime} task whose instances are the benchmark's tasks.
 */
public final class DbSchedulerPeer implements Peer {
  static final String TASK = "bench-noop";
  static final int THREADS = 16;
  static final Duration POLLING_INTERVAL = Duration.ofMillis(100);
  /** Fetch again when fewer than 0.5 × threads are queued; fetch up to 4 × threads per poll. */
  static final double LOWER_LIMIT = 0.5;
  static final double UPPER_LIMIT = 4.0;
  static final int POOL = 20;

  private final String jdbcUrl;
  private final Consumer<String> recorder;
  private HikariDataSource dataSource;
  private Scheduler scheduler;
  private OneTimeTask<Void> task;

  public DbSchedulerPeer(String jdbcUrl, Consumer<String> recorder) {
    this.jdbcUrl = jdbcUrl;
    this.recorder = recorder;
  }

  @Override
  public void start() throws Exception {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(jdbcUrl);
    hc.setMaximumPoolSize(POOL);
    hc.setPoolName("db-scheduler");
    dataSource = new HikariDataSource(hc);
    try (Connection c = dataSource.getConnection();
         InputStream ddl = DbSchedulerPeer.class.getResourceAsStream("/peers/db-scheduler-postgresql_tables.sql")) {
      if (ddl == null) {
        throw new IOException("resource peers/db-scheduler-postgresql_tables.sql is missing from the jar");
      }
      Peer.runScript(c, new String(ddl.readAllBytes(), StandardCharsets.UTF_8));
    }
    task = Tasks.oneTime(TASK).execute((instance, ctx) -> recorder.accept(instance.getId()));
    scheduler = Scheduler.create(dataSource, task)
        .threads(THREADS)
        .pollingInterval(POLLING_INTERVAL)
        .pollUsingLockAndFetch(LOWER_LIMIT, UPPER_LIMIT)
        .build();
    scheduler.start();
  }

  /** {@code scheduleBatch}: one JDBC batch insert for the whole chunk. */
  @Override
  public void schedule(String phase, Schedule s, int from, int to) {
    List<SchedulableInstance<?>> batch = new ArrayList<>(to - from);
    for (int i = from; i < to; i++) {
      batch.add(SchedulableInstance.of(task.instance(phase + "/" + i), Instant.ofEpochMilli(s.trigger(i))));
    }
    scheduler.scheduleBatch(batch);
  }

  @Override
  public void storeFuture(Connection c, long offset, long count, long startMs, long spanMs) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("""
        INSERT INTO scheduled_tasks (task_name, task_instance, task_data, execution_time, picked, version, priority)
        SELECT ?, 'far/' || (?::bigint + n), NULL,
               timestamptz 'epoch' + (?::bigint + ((n - 1) * ?::bigint) / ?::bigint) * interval '1 millisecond',
               false, 1, 0
        FROM generate_series(?::bigint, ?::bigint) AS n
        """)) {
      PeerMain.inChunks(count, (lo, hi) -> {
        ps.setString(1, TASK);
        ps.setLong(2, offset);
        ps.setLong(3, startMs);
        ps.setLong(4, spanMs);
        ps.setLong(5, count);
        ps.setLong(6, lo);
        ps.setLong(7, hi);
        ps.executeUpdate();
      });
    }
  }

  @Override
  public Map<String, String> settings() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("version", "db-scheduler 16.7.1 (latest on Maven Central at the time of writing)");
    m.put("schema", "official postgresql_tables.sql (scheduled_tasks, PK + 3 indexes)");
    m.put("polling strategy", "lock-and-fetch: pollUsingLockAndFetch(" + LOWER_LIMIT + ", " + UPPER_LIMIT
        + ") — refetch below " + LOWER_LIMIT + "×threads queued, up to " + UPPER_LIMIT + "×threads per poll");
    m.put("polling interval", POLLING_INTERVAL.toMillis() + " ms (default 10 s; lowered for latency)");
    m.put("executor threads", Integer.toString(THREADS) + " (default 10)");
    m.put("connection pool", "HikariCP, maximumPoolSize " + POOL);
    m.put("task", "Tasks.oneTime(\"" + TASK + "\"), no data; body records System.currentTimeMillis()");
    m.put("ingest API", "scheduleBatch(List<SchedulableInstance>) per chunk (JDBC batch insert)");
    m.put("other", "defaults: heartbeat 5 min, no priority, scheduler name = host name");
    return m;
  }

  @Override
  public void close() {
    if (scheduler != null) {
      scheduler.stop();
    }
    if (dataSource != null) {
      dataSource.close();
    }
  }
}
