package ax.store;

import ax.leader.Fence;
import ax.schedule.ScheduleSettings;
import ax.store.RecurringScheduleStore.Materialised;
import ax.store.RecurringScheduleStore.ScheduleRow;
import io.vertx.sqlclient.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Occurrences are created against a real PostgreSQL: under the lease only, once per (schedule, scheduled
 * time) however often a pass repeats, with missed due times recorded, and with the template's fields.
 */
class RecurringScheduleStoreTest {
  private static final String TEMPLATE = """
      {"task_type":"report.build","callback_url":"http://127.0.0.1:9/r","processor":null,\
      "payload":{"n":123456789012345678901234567890.5},"max_retry":1,"priority":7,"timeout_ms":5000}""";
  private static final ScheduleSettings SETTINGS = new ScheduleSettings(5_000, 3, 1_000);
  private static final AtomicLong IDS = new AtomicLong(900_000);

  private static StoreFixture db;
  private static RecurringScheduleStore store;
  private static LeaseStore leases;
  private Fence fence;

  @BeforeAll
  static void setUp() {
    db = new StoreFixture();
    store = new RecurringScheduleStore(db.pool);
    leases = new LeaseStore(db.pool);
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  @BeforeEach
  void freshTables() {
    db.pool.query("TRUNCATE tasks, task_attempts, leases, lease_terms, schedules, schedule_misfires").execute().await();
    long epoch = leases.tryAcquire("scheduler", "node-a/1", null, 30_000).await().orElseThrow();
    fence = new Fence("scheduler", "node-a/1", epoch);
  }

  private ScheduleRow everySecond(Instant start, String misfire, Long maxRuns) {
    return everySecond(start, misfire, maxRuns, "allow");
  }

  private ScheduleRow everySecond(Instant start, String misfire, Long maxRuns, String overlap) {
    return store.create(new ScheduleRow(IDS.incrementAndGet(), "tenant-a", "key-a", null, null, 1_000L, null,
        "UTC", start, null, maxRuns, misfire, overlap, TEMPLATE, "ACTIVE", start, 0, 0, 0, null, null, null)).await();
  }

  /** A terminal transition as any path writes it (the trigger of V10 runs in it). */
  private static void settle(long taskId, String status) {
    db.pool.preparedQuery("UPDATE tasks SET status = $2, finished_at = now() WHERE task_id = $1")
        .execute(io.vertx.sqlclient.Tuple.of(taskId, status)).await();
  }

  private static List<String> statuses(List<Row> rows) {
    return rows.stream().map(r -> r.getString("status")).toList();
  }

  private Materialised pass(long windowMs) {
    return store.materialiseDue(fence, windowMs, 100, SETTINGS, IDS::incrementAndGet).await();
  }

  private List<Row> occurrences(long scheduleId) {
    List<Row> out = new ArrayList<>();
    db.pool.query("SELECT *, payload::text AS payload_text FROM tasks WHERE schedule_id = " + scheduleId
        + " ORDER BY scheduled_time").execute().await().forEach(out::add);
    return out;
  }

  @Test
  void aPassCreatesEveryOccurrenceInTheWindowOnceWithTheTemplatesFields() {
    Instant start = Instant.ofEpochMilli(db.dbNow() + 2_000);
    ScheduleRow s = everySecond(start, "fire_once", null);
    Materialised first = pass(5_000);
    assertTrue(first.created() >= 4 && first.created() <= 5, "≈ 5 s of a 1 s rate: " + first.created());
    assertEquals(first.created(), first.toWheel().size(), "each new occurrence goes to the wheel");
    List<Row> rows = occurrences(s.scheduleId());
    assertEquals(first.created(), rows.size());
    Row one = rows.get(0);
    assertEquals(start.toEpochMilli(), one.getOffsetDateTime("scheduled_time").toInstant().toEpochMilli());
    assertEquals(one.getOffsetDateTime("scheduled_time"), one.getOffsetDateTime("trigger_time"));
    assertEquals("report.build", one.getString("task_type"));
    assertEquals("DELAYED", one.getString("status"));
    assertEquals(7, (int) one.getShort("priority"));
    assertEquals("{\"n\": 123456789012345678901234567890.5}", one.getString("payload_text"), "the payload, exactly");

    Materialised again = pass(5_000);
    assertEquals(0, again.created(), "the window's occurrences exist already");
    ScheduleRow after = store.find("tenant-a", s.scheduleId()).await().orElseThrow();
    assertEquals(first.created(), after.runs());
    assertTrue(after.nextDue().isAfter(Instant.ofEpochMilli(db.dbNow() + 4_000)), "the cursor is past the window");
  }

  @Test
  void aRepeatedPlanCannotCreateASecondCopyOfAnOccurrence() {
    Instant start = Instant.ofEpochMilli(db.dbNow() + 1_000);
    ScheduleRow s = everySecond(start, "fire_once", null);
    pass(3_000);
    int before = occurrences(s.scheduleId()).size();
    // A leader that crashed after its commit and before anyone saw it, replayed: the cursor is put back.
    db.pool.query("UPDATE schedules SET next_due = start_at, runs = 0 WHERE schedule_id = " + s.scheduleId())
        .execute().await();
    Materialised replay = pass(3_000);
    assertEquals(0, replay.created(), "the unique key on (schedule, scheduled time) refused every copy");
    assertEquals(before, occurrences(s.scheduleId()).size());
  }

  @Test
  void withoutTheLeaseAPassWritesNothing() {
    ScheduleRow s = everySecond(Instant.ofEpochMilli(db.dbNow() + 1_000), "fire_once", null);
    Fence stale = new Fence("scheduler", "node-b/1", fence.epoch());
    Materialised m = store.materialiseDue(stale, 5_000, 100, SETTINGS, IDS::incrementAndGet).await();
    assertEquals(0, m.schedules());
    assertEquals(0, occurrences(s.scheduleId()).size());
  }

  @Test
  void missedDueTimesFollowTheMisfirePolicyAndAreRecorded() {
    // Down for a minute: due times from 60 s ago.
    Instant start = Instant.ofEpochMilli(db.dbNow() - 60_000);
    ScheduleRow once = everySecond(start, "fire_once", null);
    ScheduleRow skip = everySecond(start, "skip", null);
    pass(1_000);
    List<Row> caughtUp = occurrences(once.scheduleId()).stream()
        .filter(r -> r.getOffsetDateTime("trigger_time").isAfter(r.getOffsetDateTime("scheduled_time"))).toList();
    assertEquals(1, caughtUp.size(), "fire_once: one missed occurrence fires now");
    ScheduleRow onceAfter = store.find("tenant-a", once.scheduleId()).await().orElseThrow();
    ScheduleRow skipAfter = store.find("tenant-a", skip.scheduleId()).await().orElseThrow();
    assertTrue(onceAfter.misfired() >= 53, "the other missed ones are counted: " + onceAfter.misfired());
    assertEquals(onceAfter.misfired() + 1, skipAfter.misfired(), "skip fires none of them");
    Row record = db.pool.query("SELECT count, policy FROM schedule_misfires WHERE schedule_id = "
        + skip.scheduleId()).execute().await().iterator().next();
    assertEquals(skipAfter.misfired(), record.getLong("count"));
    assertEquals("skip", record.getString("policy"));
  }

  @Test
  void maxRunsEndsTheSchedule() {
    ScheduleRow s = everySecond(Instant.ofEpochMilli(db.dbNow() + 500), "fire_once", 3L);
    pass(10_000);
    ScheduleRow after = store.find("tenant-a", s.scheduleId()).await().orElseThrow();
    assertEquals(3, occurrences(s.scheduleId()).size());
    assertEquals("ENDED", after.status());
    assertNull(after.nextDue());
    assertEquals(0, pass(10_000).schedules(), "an ended schedule is not looked at again");
  }

  @Test
  void pausingTakesBackWhatWasCreatedAheadAndResumingPutsTheMissedOnesThroughTheMisfirePolicy() {
    Instant start = Instant.ofEpochMilli(db.dbNow() + 1_000);
    ScheduleRow s = everySecond(start, "skip", null);
    assertTrue(pass(3_000).created() > 0);
    ScheduleRow paused = store.pause("tenant-a", s.scheduleId()).await().orElseThrow();
    assertEquals("PAUSED", paused.status());
    assertEquals(0, paused.runs(), "taken back: they never ran");
    assertEquals(start, paused.nextDue(), "the cursor is back at the first of them");
    assertEquals(0, occurrences(s.scheduleId()).size());
    assertTrue(store.pause("tenant-a", s.scheduleId()).await().isEmpty(), "pausing twice changes nothing");
    assertEquals(0, pass(3_000).schedules(), "a paused schedule is not materialised");

    // Paused long enough for its cursor to fall 5 s behind: resuming applies the misfire policy.
    db.pool.query("UPDATE schedules SET next_due = next_due - interval '30 seconds', start_at = start_at - "
        + "interval '30 seconds' WHERE schedule_id = " + s.scheduleId()).execute().await();
    assertEquals("ACTIVE", store.resume("tenant-a", s.scheduleId()).await().orElseThrow().status());
    pass(1_000);
    ScheduleRow resumed = store.find("tenant-a", s.scheduleId()).await().orElseThrow();
    assertTrue(resumed.misfired() >= 20, "skip records the due times missed while paused: " + resumed.misfired());
  }

  @Test
  void deletingEndsTheScheduleAndCancelsWhatIsPending() {
    ScheduleRow s = everySecond(Instant.ofEpochMilli(db.dbNow() + 1_000), "fire_once", null);
    pass(3_000);
    ScheduleRow ended = store.end("tenant-a", s.scheduleId()).await().orElseThrow();
    assertEquals("ENDED", ended.status());
    assertNull(ended.nextDue());
    assertTrue(occurrences(s.scheduleId()).stream().allMatch(r -> "CANCELLED".equals(r.getString("status"))));
    assertTrue(store.end("tenant-a", s.scheduleId()).await().isEmpty());
    assertTrue(store.trigger("tenant-a", s.scheduleId(), IDS.incrementAndGet(), IDS::incrementAndGet).await()
        .isEmpty(),
        "an ended schedule cannot be triggered");
  }

  @Test
  void triggerCreatesOneOccurrenceNowOutsideTheSequence() {
    ScheduleRow s = everySecond(Instant.ofEpochMilli(db.dbNow() + 60_000), "fire_once", null);
    assertTrue(store.trigger("tenant-b", s.scheduleId(), IDS.incrementAndGet(), IDS::incrementAndGet).await()
        .isEmpty(),
        "another tenant's schedule does not exist for them");
    long taskId = IDS.incrementAndGet();
    RecurringScheduleStore.Triggered triggered = store.trigger("tenant-a", s.scheduleId(), taskId, IDS::incrementAndGet)
        .await().orElseThrow();
    assertEquals(taskId, triggered.taskId());
    assertFalse(triggered.held(), "overlap allow: nothing holds it");
    Row row = occurrences(s.scheduleId()).get(0);
    assertEquals("READY", row.getString("status"), "an HTTP occurrence due now");
    ScheduleRow after = store.find("tenant-a", s.scheduleId()).await().orElseThrow();
    assertEquals(1, after.runs());
    assertEquals(s.nextDue(), after.nextDue(), "the sequence is untouched");
  }

  @Test
  void listingPagesThroughATenantsSchedulesNewestFirst() {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(0, everySecond(Instant.ofEpochMilli(db.dbNow() + 60_000), "fire_once", null).scheduleId());
    }
    List<ScheduleRow> first = store.list("tenant-a", null, null, null, 3).await();
    assertEquals(ids.subList(0, 3), first.stream().map(ScheduleRow::scheduleId).toList());
    ScheduleRow last = first.get(2);
    List<ScheduleRow> second = store.list("tenant-a", null, java.time.OffsetDateTime.ofInstant(last.createdAt(),
        java.time.ZoneOffset.UTC), last.scheduleId(), 3).await();
    assertEquals(ids.subList(3, 5), second.stream().map(ScheduleRow::scheduleId).toList());
    assertTrue(store.list("tenant-b", null, null, null, 3).await().isEmpty());
    assertTrue(store.list("tenant-a", "PAUSED", null, null, 3).await().isEmpty());
  }

  @Test
  void aFixedDelayIsTimedFromTheEndOfThePreviousOccurrenceAndEndsAtMaxRuns() {
    Instant start = Instant.ofEpochMilli(db.dbNow() + 500);
    ScheduleRow s = store.create(new ScheduleRow(IDS.incrementAndGet(), "tenant-a", "key-a", null, null, null, 2_000L,
        "UTC", start, null, 2L, "fire_once", "allow", TEMPLATE, "ACTIVE", start, 0, 0, 0, null, null, null)).await();
    assertEquals(1, pass(5_000).created());
    assertNull(store.find("tenant-a", s.scheduleId()).await().orElseThrow().nextDue(),
        "the next due time waits for this occurrence to end");
    assertEquals(0, pass(5_000).created());

    long first = occurrences(s.scheduleId()).get(0).getLong("task_id");
    db.pool.query("UPDATE tasks SET status = 'SUCCESS', finished_at = now() WHERE task_id = " + first).execute().await();
    ScheduleRow waiting = store.find("tenant-a", s.scheduleId()).await().orElseThrow();
    long delay = waiting.nextDue().toEpochMilli() - db.dbNow();
    assertTrue(delay > 1_000 && delay <= 2_000, "due after_ms after the end, in " + delay + " ms");
    assertEquals("ACTIVE", waiting.status());

    assertEquals(1, pass(5_000).created(), "the second occurrence");
    long second = occurrences(s.scheduleId()).get(1).getLong("task_id");
    db.pool.query("UPDATE tasks SET status = 'FAILED', finished_at = now() WHERE task_id = " + second).execute()
        .await();
    assertEquals(0, pass(5_000).created(), "max_runs 2");
    ScheduleRow ended = store.find("tenant-a", s.scheduleId()).await().orElseThrow();
    assertEquals("ENDED", ended.status());
    assertEquals(2, ended.runs());
  }

  @Test
  void aOneShotTaskEndingDoesNotTouchAnySchedule() {
    ScheduleRow s = store.create(new ScheduleRow(IDS.incrementAndGet(), "tenant-a", "key-a", null, null, null, 2_000L,
        "UTC", Instant.ofEpochMilli(db.dbNow() + 60_000), null, null, "fire_once", "allow", TEMPLATE, "ACTIVE", null,
        0, 0, 0, null, null, null)).await();
    ax.task.NewTask oneShot = StoreFixture.httpTask(db.dbNow(), ax.task.TaskStatus.READY);
    new TaskStore(db.pool).insert(oneShot).await();
    db.pool.query("UPDATE tasks SET status = 'SUCCESS', finished_at = now() WHERE task_id = " + oneShot.taskId())
        .execute().await();
    assertNull(store.find("tenant-a", s.scheduleId()).await().orElseThrow().nextDue());
  }

  @Test
  void replacingADefinitionTakesBackWhatTheOldOneMadeAheadAndRestartsTheCursor() {
    ScheduleRow s = everySecond(Instant.ofEpochMilli(db.dbNow() + 1_000), "fire_once", null);
    assertTrue(pass(3_000).created() > 0);
    Instant later = Instant.ofEpochMilli(db.dbNow() + 3_600_000);
    ScheduleRow replaced = store.replace(new ScheduleRow(s.scheduleId(), "tenant-a", "key-a", null, null, 60_000L, null,
        "UTC", later, null, null, "skip", "allow", TEMPLATE, "ACTIVE", later, 0, 0, 0, null, null, null)).await()
        .orElseThrow();
    assertEquals(later, replaced.nextDue());
    assertEquals(60_000L, replaced.everyMs());
    assertEquals(0, replaced.runs(), "the taken-back occurrences never ran");
    assertEquals(0, occurrences(s.scheduleId()).size());
    assertTrue(store.replace(new ScheduleRow(s.scheduleId(), "tenant-b", "key-b", null, null, 60_000L, null, "UTC",
        later, null, null, "skip", "allow", TEMPLATE, "ACTIVE", later, 0, 0, 0, null, null, null)).await().isEmpty(),
        "not another tenant's");
  }

  @Test
  void overlapSkipHoldsLaterOccurrencesAndTheEndOfTheRunningOneSkipsThoseThatCameDue() {
    // fire_all over the last seconds: three due at once, the rest ahead — all in one pass.
    Instant start = Instant.ofEpochMilli(db.dbNow() - 2_200);
    ScheduleRow s = everySecond(start, "fire_all", null, "skip");
    Materialised m = pass(3_000);
    List<Row> rows = occurrences(s.scheduleId());
    assertEquals("READY", rows.get(0).getString("status"), "the first runs");
    assertTrue(rows.subList(1, rows.size()).stream().allMatch(r -> "CREATED".equals(r.getString("status"))),
        "the rest are held while it has not ended: " + statuses(rows));
    assertEquals(1, m.toWheel().size(), "held occurrences do not go to the wheel");

    settle(rows.get(0).getLong("task_id"), "SUCCESS");
    List<Row> after = occurrences(s.scheduleId());
    long now = db.dbNow();
    int skipped = 0;
    int letGo = 0;
    for (Row r : after.subList(1, after.size())) {
      long due = r.getOffsetDateTime("scheduled_time").toInstant().toEpochMilli();
      String status = r.getString("status");
      if (due < now - 50) {
        assertEquals("SKIPPED", status, "came due while the first ran");
        assertTrue(r.getString("error").startsWith("overlap skip"));
        skipped++;
      } else if (status.equals("DELAYED")) {
        letGo++;
      }
    }
    assertTrue(skipped >= 2, statuses(after).toString());
    assertEquals(1, letGo, "the next one not yet due is let go at its time: " + statuses(after));
    assertEquals(skipped, store.find("tenant-a", s.scheduleId()).await().orElseThrow().skipped());
  }

  @Test
  void overlapBufferOneLetsTheOldestWaitingOneRunAtOnceAndSkipsTheOthersThatCameDue() {
    Instant start = Instant.ofEpochMilli(db.dbNow() - 2_200);
    ScheduleRow s = everySecond(start, "fire_all", null, "buffer_one");
    pass(3_000);
    List<Row> rows = occurrences(s.scheduleId());
    settle(rows.get(0).getLong("task_id"), "FAILED");
    List<Row> after = occurrences(s.scheduleId());
    assertEquals("READY", after.get(1).getString("status"), "the one that waited runs now: " + statuses(after));
    long now = db.dbNow();
    for (Row r : after.subList(2, after.size())) {
      long due = r.getOffsetDateTime("scheduled_time").toInstant().toEpochMilli();
      assertEquals(due < now - 50 ? "SKIPPED" : "CREATED", r.getString("status"), statuses(after).toString());
    }

    settle(after.get(1).getLong("task_id"), "SUCCESS");
    List<Row> later = occurrences(s.scheduleId());
    assertEquals(1, later.stream().filter(r -> List.of("READY", "DELAYED").contains(r.getString("status"))).count(),
        "the next one is let go when the buffered one ends: " + statuses(later));
  }

  @Test
  void triggerHoldsTheOccurrenceWhileAnotherRunsUnderOverlapSkip() {
    ScheduleRow s = everySecond(Instant.ofEpochMilli(db.dbNow() + 60_000), "fire_once", null, "skip");
    RecurringScheduleStore.Triggered first = store.trigger("tenant-a", s.scheduleId(), IDS.incrementAndGet(),
        IDS::incrementAndGet).await().orElseThrow();
    assertFalse(first.held());
    RecurringScheduleStore.Triggered second = store.trigger("tenant-a", s.scheduleId(), IDS.incrementAndGet(),
        IDS::incrementAndGet).await().orElseThrow();
    assertTrue(second.held(), "the first has not ended");
    assertTrue(store.pause("tenant-a", s.scheduleId()).await().isPresent());
    assertEquals(List.of(), statuses(occurrences(s.scheduleId())),
        "pausing takes back held occurrences like every other one that has not fired");
  }

  @Test
  void aShardedTemplateMakesEachOccurrenceWithItsShardsAndTakingBackRemovesThemToo() {
    String sharded = """
        {"task_type":"report.build","callback_url":null,"processor":"reports","payload":null,"max_retry":1,\
        "priority":5,"timeout_ms":5000,"notify_url":null,"shard_total":3}""";
    Instant start = Instant.ofEpochMilli(db.dbNow() + 2_000);
    ScheduleRow s = store.create(new ScheduleRow(IDS.incrementAndGet(), "tenant-a", "key-a", null, null, 1_000L, null,
        "UTC", start, null, null, "fire_once", "allow", sharded, "ACTIVE", start, 0, 0, 0, null, null, null)).await();
    Materialised m = pass(5_000);
    assertTrue(m.created() >= 2, "occurrences in the window: " + m.created());
    assertEquals(4 * m.created(), m.toWheel().size(), "each occurrence and its three shards go to the wheel");
    List<Row> occurrences = occurrences(s.scheduleId());
    for (Row o : occurrences) {
      assertEquals(3, o.getInteger("shard_total"));
      List<Row> shards = new ArrayList<>();
      db.pool.query("SELECT * FROM tasks WHERE parent_id = " + o.getLong("task_id") + " ORDER BY shard_index")
          .execute().await().forEach(shards::add);
      assertEquals(List.of(0, 1, 2), shards.stream().map(r -> r.getInteger("shard_index")).toList());
      assertTrue(shards.stream().allMatch(r -> r.getLong("schedule_id") == null
          && "DELAYED".equals(r.getString("status"))), "shards are not occurrences themselves");
    }
    RecurringScheduleStore.Triggered now = store.trigger("tenant-a", s.scheduleId(), IDS.incrementAndGet(),
        IDS::incrementAndGet).await().orElseThrow();
    assertEquals(4, now.tasks().size(), "a triggered occurrence comes with its shards");

    assertTrue(store.pause("tenant-a", s.scheduleId()).await().isPresent());
    assertEquals(0L, db.pool.query("SELECT count(*) FROM tasks").execute().await().iterator().next().getLong(0),
        "pausing takes back occurrences and their shards");
  }
}
