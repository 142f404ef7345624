package ax.verticles;

import ax.bus.Addresses;
import ax.bus.LocalCodec;
import ax.bus.TaskBatch;
import ax.leader.LeaderTerm;
import ax.metrics.AxMetrics;
import ax.schedule.ScheduleSettings;
import ax.store.RecurringScheduleStore;
import ax.store.RecurringScheduleStore.ScheduleRow;
import ax.wheel.ScheduledTask;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.junit5.Checkpoint;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * OccurrenceVerticle deployed in a real Vert.x against a real PostgreSQL: in its term it creates a
 * schedule's occurrences and hands each to the wheel once; outside a term it does nothing.
 */
@ExtendWith(VertxExtension.class)
class OccurrenceVerticleTest {
  private static final String TEMPLATE = """
      {"task_type":"cache.refresh","callback_url":"http://127.0.0.1:9/r","processor":null,"payload":null,\
      "max_retry":0,"priority":5,"timeout_ms":1000}""";

  private VerticleDatabase db;
  private RecurringScheduleStore store;
  private LeaderTerm term;
  private final AtomicLong ids = new AtomicLong(77_000);

  @BeforeEach
  void deploy(Vertx vertx, VertxTestContext ctx) {
    db = VerticleDatabase.create(vertx);
    store = new RecurringScheduleStore(db.pool);
    term = db.leadScheduler("node-a/1");
    OccurrenceVerticle verticle = new OccurrenceVerticle(store, ids::incrementAndGet,
        new AxMetrics(new SimpleMeterRegistry()), new OccurrenceVerticle.Settings(100, 2_000, 50,
        ScheduleSettings.defaults()));
    vertx.deployVerticle(verticle).onComplete(ctx.succeedingThenComplete());
  }

  @AfterEach
  void close() {
    db.close();
  }

  @Test
  void inItsTermItHandsEachNewOccurrenceToTheWheelOnce(Vertx vertx, VertxTestContext ctx) {
    Instant start = Instant.now().plusMillis(500);
    store.create(new ScheduleRow(1L, "tenant-a", "key-a", null, null, 1_000L, null, "UTC", start, null, 4L,
        "fire_once", "allow", TEMPLATE, "ACTIVE", start, 0, 0, 0, null, null, null)).await();
    Set<Long> seen = new HashSet<>();
    Checkpoint fourOccurrences = ctx.checkpoint(4);
    vertx.eventBus().<TaskBatch>localConsumer(Addresses.WHEEL_SCHEDULE, msg -> {
      for (ScheduledTask t : msg.body().tasks()) {
        ctx.verify(() -> assertTrue(seen.add(t.taskId()), "task " + t.taskId() + " handed over twice"));
        fourOccurrences.flag();
      }
    });
    vertx.eventBus().publish(Addresses.LEADER_CHANGED, term, LocalCodec.localOnly());
    // max_runs 4 at a 1 s rate: the 2 s window takes ~3 at the first pass, the 4th a second later.
  }

  @Test
  void withoutATermItCreatesNothing(Vertx vertx, VertxTestContext ctx) {
    Instant start = Instant.now().minusMillis(100);
    store.create(new ScheduleRow(2L, "tenant-a", "key-a", null, null, 1_000L, null, "UTC", start, null, null,
        "fire_once", "allow", TEMPLATE, "ACTIVE", start, 0, 0, 0, null, null, null)).await();
    vertx.setTimer(500, t -> db.pool.query("SELECT count(*) FROM tasks").execute().onComplete(ctx.succeeding(rows -> {
      ctx.verify(() -> assertEquals(0L, rows.iterator().next().getLong(0)));
      ctx.completeNow();
    })));
  }
}
