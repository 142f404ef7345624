package ax.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
class AtDbTimeTest {

  private static DbClock syncedNow(DbClock clock) {
    clock.anchorMillis(1_700_000_000_000L, clock.monoNanos());
    return clock;
  }

  @Test
  void anInstantAlreadyPastRunsAtOnceWithTheGivenStart(Vertx vertx, VertxTestContext ctx) {
    DbClock clock = syncedNow(DbClock.system());
    AtDbTime.run(vertx, clock, clock.nowMillis() - 5, 42L, started -> ctx.verify(() -> {
      assertEquals(42L, started);
      ctx.completeNow();
    }));
  }

  @Test
  void aDbClockSlowerThanTheTimersIsWaitedForNeverRunEarly(Vertx vertx, VertxTestContext ctx) {
    // the database clock advances at half the node's pace, as if resyncs kept landing behind: the first
    // timer fires when only half the wait has passed for the database, and must be set again
    DbClock clock = syncedNow(new DbClock(() -> System.nanoTime() / 2));
    long atMs = clock.nowMillis() + 200;
    long before = System.nanoTime();
    AtDbTime.run(vertx, clock, atMs, before, started -> ctx.verify(() -> {
      long early = atMs - clock.nowMillis();
      assertTrue(early <= 0, "released " + early + " ms before its instant");
      assertTrue(started > before, "the start is the moment of release, not of the request");
      ctx.completeNow();
    }));
  }

  @Test
  void aHeldActionNoLongerWantedWhenItsTimerFiresIsDropped(Vertx vertx, VertxTestContext ctx) {
    DbClock clock = syncedNow(DbClock.system());
    boolean[] ran = {false};
    AtDbTime.run(vertx, clock, clock.nowMillis() + 50, 0L, () -> false, started -> ran[0] = true);
    vertx.setTimer(300, id -> ctx.verify(() -> {
      assertFalse(ran[0], "a held action no longer wanted ran");
      ctx.completeNow();
    }));
  }
}
