package ax.bench.peers;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.quartz.CronScheduleBuilder;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.Scheduler;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;

/**
 * Quartz 2.5.2 as it runs clustered on PostgreSQL in production: {@code JobStoreTX} with the
 * {@code PostgreSQLDelegate}, {@code isClustered=true} (row lock on QRTZ_LOCKS), the official
 * {@code tables_postgres.sql}, a HikariCP data source, 16 worker threads, and trigger acquisition in
 * batches of up to 16. One job + one one-shot SimpleTrigger per task, as Quartz is used for delayed jobs.
 */
public final class QuartzPeer implements Peer {
  static final int THREADS = 16;
  static final int BATCH = THREADS; // Quartz caps a batch at the free threads, so more would not be used
  static final int POOL = THREADS + 4;
  static final String GROUP = "bench";
  static final String SCHED_NAME = "bench";
  /**
   * Quartz's default is 60 s: a trigger later than that leaves the normal acquisition for the misfire handler
   * (20 per transaction). Bursts here run later than that, so it is raised as a user with bursts would; on
   * 2026-11-30 it doubled what a 20 000 burst executed within 400 s (3 721 → 7 765), far from draining
   * (bench/results/rerun-quartz-misfire-1h).
   */
  static final long MISFIRE_THRESHOLD_MS = 3_600_000;

  /**
   * Quartz instantiates job classes itself, so a job cannot be handed a recorder; this JVM hosts exactly
   * one peer (PeerMain), which makes a static the simple honest way.
   */
  private static volatile Recorder recorder;

  private final String jdbcUrl;
  private Scheduler scheduler;

  public QuartzPeer(String jdbcUrl, Recorder recorder) {
    this.jdbcUrl = jdbcUrl;
    QuartzPeer.recorder = recorder;
  }

  /** The no-op job: records that it ran. */
  public static final class NoopJob implements Job {
    @Override
    public void execute(JobExecutionContext context) {
      recorder.executed(context.getJobDetail().getKey().getName());
    }
  }

  /** The job of a recurring schedule: records that it ran and for which scheduled fire time. */
  public static final class RecurringJob implements Job {
    @Override
    public void execute(JobExecutionContext context) {
      recorder.occurred(context.getJobDetail().getKey().getName(), context.getScheduledFireTime().getTime());
    }
  }

  private Properties properties() {
    Properties p = new Properties();
    p.setProperty("org.quartz.scheduler.instanceName", SCHED_NAME);
    p.setProperty("org.quartz.scheduler.instanceId", "AUTO");
    p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
    p.setProperty("org.quartz.scheduler.batchTriggerAcquisitionMaxCount", Integer.toString(BATCH));
    p.setProperty("org.quartz.threadPool.class", "org.quartz.simpl.SimpleThreadPool");
    p.setProperty("org.quartz.threadPool.threadCount", Integer.toString(THREADS));
    p.setProperty("org.quartz.jobStore.class", "org.quartz.impl.jdbcjobstore.JobStoreTX");
    p.setProperty("org.quartz.jobStore.driverDelegateClass", "org.quartz.impl.jdbcjobstore.PostgreSQLDelegate");
    p.setProperty("org.quartz.jobStore.tablePrefix", "QRTZ_");
    p.setProperty("org.quartz.jobStore.isClustered", "true");
    p.setProperty("org.quartz.jobStore.acquireTriggersWithinLock", "true");
    p.setProperty("org.quartz.jobStore.misfireThreshold", Long.toString(MISFIRE_THRESHOLD_MS));
    p.setProperty("org.quartz.jobStore.dataSource", "bench");
    p.setProperty("org.quartz.dataSource.bench.provider", "hikaricp");
    p.setProperty("org.quartz.dataSource.bench.driver", "org.postgresql.Driver");
    p.setProperty("org.quartz.dataSource.bench.URL", jdbcUrl);
    p.setProperty("org.quartz.dataSource.bench.maxConnections", Integer.toString(POOL));
    return p;
  }

  @Override
  public void start() throws Exception {
    try (Connection c = DriverManager.getConnection(jdbcUrl);
         InputStream ddl = Scheduler.class.getResourceAsStream("/org/quartz/impl/jdbcjobstore/tables_postgres.sql")) {
      if (ddl == null) {
        throw new IOException("tables_postgres.sql is missing from the quartz jar");
      }
      Peer.runScript(c, new String(ddl.readAllBytes(), StandardCharsets.UTF_8));
    }
    scheduler = new StdSchedulerFactory(properties()).getScheduler();
    scheduler.start();
  }

  /** {@code scheduleJobs}: the whole chunk of jobs and triggers in one transaction. */
  @Override
  public void schedule(String phase, Schedule s, int from, int to) throws Exception {
    Map<JobDetail, Set<? extends Trigger>> batch = new HashMap<>();
    for (int i = from; i < to; i++) {
      String name = phase + "/" + i;
      JobDetail job = JobBuilder.newJob(NoopJob.class).withIdentity(name, GROUP).build();
      Trigger trigger = TriggerBuilder.newTrigger().withIdentity(name, GROUP).forJob(job)
          .startAt(new Date(s.trigger(i)))
          .withSchedule(SimpleScheduleBuilder.simpleSchedule().withMisfireHandlingInstructionFireNow())
          .build();
      batch.put(job, Set.of(trigger));
    }
    scheduler.scheduleJobs(batch, false);
  }

  /**
   * One durable job + one trigger per schedule, all in one {@code scheduleJobs} transaction: a
   * {@code CronTrigger "* * * * * ?"} from the first due time to the last when the plan is aligned (every
   * schedule due at the same instant each second, cron's shape), else a {@code SimpleTrigger} with
   * {@code startAt} = the schedule's staggered anchor, the plan's interval and {@code repeatCount} = slots − 1
   * (Quartz's fixed rate). Misfire instructions are Quartz's defaults ("smart policy"); with the 1 h
   * misfireThreshold below they do not come into play unless Quartz falls an hour behind.
   */
  @Override
  public void scheduleRecurring(String phase, RecurringPlan plan, int from, int to) throws Exception {
    if (plan.aligned() && plan.periodMs() != 1000) {
      throw new IllegalArgumentException("an aligned plan is cron \"* * * * * ?\": its period must be 1000 ms");
    }
    Map<JobDetail, Set<? extends Trigger>> batch = new HashMap<>();
    for (int i = from; i < to; i++) {
      String name = phase + "/" + i;
      JobDetail job = JobBuilder.newJob(RecurringJob.class).withIdentity(name, GROUP).build();
      TriggerBuilder<Trigger> tb = TriggerBuilder.newTrigger().withIdentity(name, GROUP).forJob(job)
          .startAt(new Date(plan.anchor(i)));
      Trigger trigger = plan.aligned()
          ? tb.withSchedule(CronScheduleBuilder.cronSchedule("* * * * * ?")).endAt(new Date(plan.lastDue(i))).build()
          : tb.withSchedule(SimpleScheduleBuilder.simpleSchedule().withIntervalInMilliseconds(plan.periodMs())
              .withRepeatCount(plan.slots() - 1)).build();
      batch.put(job, Set.of(trigger));
    }
    scheduler.scheduleJobs(batch, false);
  }

  /** One row per task in QRTZ_JOB_DETAILS, QRTZ_TRIGGERS and QRTZ_SIMPLE_TRIGGERS, as scheduleJob writes. */
  @Override
  public void storeFuture(Connection c, long offset, long count, long startMs, long spanMs) throws SQLException {
    String names = "FROM generate_series(?::bigint, ?::bigint) AS n";
    String jobs = "INSERT INTO qrtz_job_details (sched_name, job_name, job_group, job_class_name, is_durable, "
        + "is_nonconcurrent, is_update_data, requests_recovery) SELECT '" + SCHED_NAME + "', 'far/' || (?::bigint + n), '"
        + GROUP + "', '" + NoopJob.class.getName() + "', false, false, false, false " + names;
    String triggers = "INSERT INTO qrtz_triggers (sched_name, trigger_name, trigger_group, job_name, job_group, "
        + "next_fire_time, prev_fire_time, priority, trigger_state, trigger_type, start_time, end_time, misfire_instr) "
        + "SELECT '" + SCHED_NAME + "', 'far/' || (?::bigint + n), '" + GROUP + "', 'far/' || (?::bigint + n), '" + GROUP
        + "', ?::bigint + ((n - 1) * ?::bigint) / ?::bigint, -1, 5, 'WAITING', 'SIMPLE', "
        + "?::bigint + ((n - 1) * ?::bigint) / ?::bigint, 0, " + SimpleScheduleBuilder.simpleSchedule()
        .withMisfireHandlingInstructionFireNow().build().getMisfireInstruction() + " " + names;
    String simple = "INSERT INTO qrtz_simple_triggers (sched_name, trigger_name, trigger_group, repeat_count, "
        + "repeat_interval, times_triggered) SELECT '" + SCHED_NAME + "', 'far/' || (?::bigint + n), '" + GROUP
        + "', 0, 0, 0 " + names;
    try (PreparedStatement pj = c.prepareStatement(jobs);
         PreparedStatement pt = c.prepareStatement(triggers);
         PreparedStatement ps = c.prepareStatement(simple)) {
      PeerMain.inChunks(count, (lo, hi) -> {
        pj.setLong(1, offset);
        pj.setLong(2, lo);
        pj.setLong(3, hi);
        pj.executeUpdate();
        int k = 1;
        pt.setLong(k++, offset);
        pt.setLong(k++, offset);
        for (int rep = 0; rep < 2; rep++) { // next_fire_time and start_time
          pt.setLong(k++, startMs);
          pt.setLong(k++, spanMs);
          pt.setLong(k++, count);
        }
        pt.setLong(k++, lo);
        pt.setLong(k, hi);
        pt.executeUpdate();
        ps.setLong(1, offset);
        ps.setLong(2, lo);
        ps.setLong(3, hi);
        ps.executeUpdate();
      });
    }
  }

  @Override
  public Map<String, String> settings() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("version", "Quartz 2.5.2");
    m.put("job store", "JobStoreTX + PostgreSQLDelegate, isClustered=true, acquireTriggersWithinLock=true, "
        + "instanceId AUTO (clustering = SELECT … FOR UPDATE on QRTZ_LOCKS around acquisition)");
    m.put("schema", "official org/quartz/impl/jdbcjobstore/tables_postgres.sql from the quartz jar");
    m.put("threads", "SimpleThreadPool, threadCount " + THREADS);
    m.put("batchTriggerAcquisitionMaxCount", BATCH + " (default 1; Quartz never acquires more than its free threads)");
    m.put("batchTriggerAcquisitionFireAheadTimeWindow", "0 (default): a wider window fires the later triggers of a "
        + "batch early, which this benchmark counts as a violation");
    m.put("data source", "provider=hikaricp, maxConnections " + POOL);
    m.put("task", "one JobDetail (NoopJob, no data) + one SimpleTrigger (startAt, repeat 0, "
        + "misfire = fire now) per task; the job records System.currentTimeMillis()");
    m.put("ingest API", "scheduleJobs(Map<JobDetail, Set<Trigger>>, false) per chunk (one transaction)");
    m.put("recurring", "one JobDetail (RecurringJob) + one trigger per schedule: CronTrigger \"* * * * * ?\" "
        + "(startAt/endAt) when aligned, else SimpleTrigger (startAt = staggered anchor, interval = period, "
        + "repeatCount = slots − 1); default misfire instructions; the job records System.currentTimeMillis() and "
        + "getScheduledFireTime()");
    m.put("misfireThreshold", MISFIRE_THRESHOLD_MS / 1000 + " s (default 60 s: later triggers go to the misfire handler)");
    m.put("other", "defaults: idleWaitTime 30 s (scheduling in this JVM wakes it), clusterCheckinInterval 7.5 s");
    return m;
  }

  @Override
  public void close() {
    if (scheduler != null) {
      try {
        scheduler.shutdown(false);
      } catch (org.quartz.SchedulerException e) {
        System.err.println("quartz shutdown: " + e);
      }
    }
  }
}
