package ax.bench.peers;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.SchedulableInstance;
import com.github.kagkarlsson.scheduler.task.ExecutionComplete;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.RecurringTaskWithPersistentSchedule;
import com.github.kagkarlsson.scheduler.task.helper.ScheduleAndData;
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

/**
 * db-scheduler 16.7.1 as a user chasing latency and throughput would run it on PostgreSQL: the official
 * schema, the lock-and-fetch polling strategy ({@code UPDATE … FOR UPDATE SKIP LOCKED … RETURNING}, one
 * round trip per batch), a 100 ms polling interval instead of the default 10 s, 16 executor threads,
 * a HikariCP pool. One {@code Tasks.oneTime} task whose instances are the benchmark's tasks.
 *
 * <p>Recurring schedules: one {@code Tasks.recurringWithPersistentSchedule} task, one instance per schedule,
 * each with its own schedule stored in its {@code task_data} — db-scheduler's way to create many recurring
 * schedules at run time (a plain {@code Tasks.recurring} task is one instance per task name, fixed in code
 * when the scheduler is built). The schedule is {@link FixedRate} below.
 */
public final class DbSchedulerPeer implements Peer {
  static final String TASK = "bench-noop";
  static final String RECURRING_TASK = "bench-recurring";
  static final int THREADS = 16;
  static final Duration POLLING_INTERVAL = Duration.ofMillis(100);
  /** Fetch again when fewer than 0.5 × threads are queued; fetch up to 4 × threads per poll. */
  static final double LOWER_LIMIT = 0.5;
  static final double UPPER_LIMIT = 4.0;
  static final int POOL = 20;

  private final String jdbcUrl;
  private final Recorder recorder;
  private HikariDataSource dataSource;
  private Scheduler scheduler;
  private OneTimeTask<Void> task;
  private RecurringTaskWithPersistentSchedule<Occurrences> recurring;

  /**
   * A fixed-rate schedule that ends: due at {@code anchor + k·period} up to {@code last}, then
   * {@code Schedule.NEVER}. db-scheduler ships {@code FixedDelay} (the next run is the delay after the previous
   * one <em>completed</em>, so it drifts by every execution's lateness and never lands on a grid) and cron (whole
   * seconds only, so starts cannot be staggered inside a second, and no end); this is the fixed rate a user
   * would write for it. Like db-scheduler's own {@code CronSchedule} the next due time is the first one after
   * the completion time: an execution late by more than a period skips the due times it passed (they show as
   * missed).
   */
  public record FixedRate(long anchorMs, long periodMs, long lastMs) implements com.github.kagkarlsson.scheduler.task.schedule.Schedule, java.io.Serializable {
    @Override
    public Instant getNextExecutionTime(ExecutionComplete done) {
      return firstAtOrAfter(done.getTimeDone().toEpochMilli() + 1);
    }

    @Override
    public Instant getInitialExecutionTime(Instant now) {
      return firstAtOrAfter(now.toEpochMilli());
    }

    private Instant firstAtOrAfter(long t) {
      long k = t <= anchorMs ? 0 : (t - anchorMs + periodMs - 1) / periodMs;
      long due = anchorMs + k * periodMs;
      return due > lastMs ? com.github.kagkarlsson.scheduler.task.schedule.Schedule.NEVER : Instant.ofEpochMilli(due);
    }

    @Override
    public boolean isDeterministic() {
      return true;
    }
  }

  /** The stored schedule and data of one recurring instance (the data is the schedule's index). */
  public record Occurrences(FixedRate schedule, Integer index) implements ScheduleAndData {
    @Override
    public com.github.kagkarlsson.scheduler.task.schedule.Schedule getSchedule() {
      return schedule;
    }

    @Override
    public Object getData() {
      return index;
    }
  }

  public DbSchedulerPeer(String jdbcUrl, Recorder recorder) {
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
    task = Tasks.oneTime(TASK).execute((instance, ctx) -> recorder.executed(instance.getId()));
    recurring = Tasks.recurringWithPersistentSchedule(RECURRING_TASK, Occurrences.class)
        .execute((instance, ctx) -> recorder.occurred(instance.getId(), ctx.getExecution().executionTime.toEpochMilli()));
    scheduler = Scheduler.create(dataSource, task, recurring)
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

  /** One instance per schedule, first due at its anchor, all in one {@code scheduleBatch}. */
  @Override
  public void scheduleRecurring(String phase, RecurringPlan plan, int from, int to) {
    List<SchedulableInstance<?>> batch = new ArrayList<>(to - from);
    for (int i = from; i < to; i++) {
      FixedRate rate = new FixedRate(plan.anchor(i), plan.periodMs(), plan.lastDue(i));
      batch.add(recurring.schedulableInstance(phase + "/" + i, new Occurrences(rate, i)));
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
    m.put("recurring", "Tasks.recurringWithPersistentSchedule(\"" + RECURRING_TASK + "\"), one instance per schedule "
        + "with its schedule in task_data (Java-serialized): a fixed rate anchor + k·period that ends after the last "
        + "slot, next due time = the first after completion (as db-scheduler's CronSchedule); body records "
        + "System.currentTimeMillis() and the execution's executionTime");
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
