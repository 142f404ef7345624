package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fault matrix's clock jump: nodes whose wall clocks are an hour off, and a leader whose clock jumps
 * two hours while HTTP tasks fall due every 80 ms. ax judges "due" on {@link ax.clock.DbClock} (database
 * time carried forward by the monotonic clock, never leading the database), so no call may reach its
 * target before its trigger time — by the receiver's clock, which is this machine's true time and the
 * database's — none may be lost or made twice, and the leader's term (judged on database time) must not
 * change: a clock step is no reason for a failover.
 *
 * <p>The clocks are moved with libfaketime ({@link FakeTime}); each node's {@code ax_clock_offset_seconds}
 * must show its offset, so the test knows the fault was really there.
 */
class ClockJumpIT {
  private static final int TASKS = 300;
  private static final long SPACING_MS = 80;

  @Test
  void nodesAnHourOffAndALeaderWhoseClockJumpsFireNothingEarlyLoseNothingAndKeepTheirLeader() throws Exception {
    FakeTime.assumeInstalled();
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         FakeTime.Jumpable clock0 = new FakeTime.Jumpable("-1h"); FakeTime.Jumpable clock1 = new FakeTime.Jumpable("+1h");
         AxCluster ax = AxCluster.start(pg, 2, Map.of("AX_CLOCK_SYNC_INTERVAL_MS", "1000"),
             Map.of(0, clock0.env(), 1, clock1.env()))) {
      int leader = ax.awaitLeader(30_000);
      FakeTime.Jumpable leaderClock = leader == 0 ? clock0 : clock1;
      double[] startOffsets = {awaitOffset(ax, 0, -3600), awaitOffset(ax, 1, 3600)};
      try (LeaderPolls polls = LeaderPolls.start(ax, 200)) {
        long first = System.currentTimeMillis() + 2_000;
        List<JsonObject> tasks = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
          tasks.add(new JsonObject().put("task_type", "clock.jump").put("dedupe", false).put("max_retry", 0)
              .put("callback_url", receiver.url()).put("trigger_time", Instant.ofEpochMilli(first + i * SPACING_MS).toString()));
        }
        List<Long> ids = new ArrayList<>();
        ExecutorIT.submitAll(ax.api(0), tasks.subList(0, TASKS / 2)).forEach(id -> ids.add(Long.parseLong(id)));
        ExecutorIT.submitAll(ax.api(1), tasks.subList(TASKS / 2, TASKS)).forEach(id -> ids.add(Long.parseLong(id)));
        long last = first + (TASKS - 1) * SPACING_MS;

        // A third of the way through, the leader's clock jumps two hours the other way; two thirds through, back
        // to true time.
        sleepUntil(first + (last - first) / 3);
        String jumped = leader == 0 ? "+1h" : "-1h";
        long jumpedAt = System.currentTimeMillis();
        leaderClock.jump(jumped);
        double afterJump = awaitOffset(ax, leader, leader == 0 ? 3600 : -3600);
        sleepUntil(first + 2 * (last - first) / 3);
        long returnedAt = System.currentTimeMillis();
        leaderClock.jump("+0s");
        double afterReturn = awaitOffset(ax, leader, 0);

        ax.awaitCount("SELECT count(*) FROM tasks WHERE status IN ('SUCCESS', 'FAILED')", ids.size(),
            last - System.currentTimeMillis() + 30_000);
        Thread.sleep(2_000); // a repeated call would have arrived by now
        polls.close();
        Arrivals arrivals = Arrivals.of(receiver, ids); // no crash here: any second call is a run twice
        Map<Long, Set<String>> led = polls.leadersByEpoch();
        int spuriousFailovers = Math.max(0, led.size() - 1);
        System.out.printf("clock jump: %s; %s%n", arrivals, polls.describe());
        Map<String, Object> figures = new HashMap<>(arrivals.figures());
        figures.put("spurious_failovers", spuriousFailovers);
        // Lateness before the jump, while the leader's clock was 2 h off its start, and after it came back:
        // a jump that slowed firing would show here (ids are in trigger order)
        List<Long> before = new ArrayList<>();
        List<Long> during = new ArrayList<>();
        List<Long> after = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
          long due = first + i * SPACING_MS;
          (due < jumpedAt ? before : due < returnedAt ? during : after).add(ids.get(i));
        }
        String byPhase = String.format("p99 %d / %d / %d ms", Arrivals.of(receiver, before).p99(),
            Arrivals.of(receiver, during).p99(), Arrivals.of(receiver, after).p99());
        figures.put("lateness_before_during_after_jump", byPhase);
        System.out.println("clock jump: lateness before / during / after the leader's jump: " + byPhase);
        figures.put("epochs_with_two_leaders", polls.epochsWithTwoLeaders());
        figures.put("offsets_seen_s", String.format("node-0 %.0f, node-1 %.0f; leader node-%d %.0f after its jump, %.0f after "
            + "the jump back", startOffsets[0], startOffsets[1], leader, afterJump, afterReturn));
        FaultRow.record("clock-jump", figures, "two nodes started with their wall clocks at -1 h and +1 h (libfaketime); "
            + ids.size() + " HTTP tasks due every " + SPACING_MS + " ms while the leader's clock jumped to " + jumped
            + " and back to true time: " + arrivals + "; leaders by epoch " + led);
        assertEquals(0, arrivals.early(), "calls before their trigger time");
        assertEquals(0, arrivals.lost(), "tasks never called");
        assertEquals(0, arrivals.runTwice(), "tasks called more than once");
        assertEquals(ids.size(), ax.count("SELECT count(*) FROM tasks WHERE status = 'SUCCESS'"));
        assertEquals(0, polls.epochsWithTwoLeaders(), polls.describe());
        assertEquals(0, spuriousFailovers, "the leader's term changed with no node down: " + polls.describe());
        assertTrue(ax.nodes.get(leader).isAlive() && ax.nodes.get(1 - leader).isAlive());
      }
    }
  }

  /** Waits for node {@code i}'s reported clock offset to be within a minute of {@code expectedS}; returns it. */
  static double awaitOffset(AxCluster ax, int i, double expectedS) throws Exception {
    long deadline = System.currentTimeMillis() + 15_000;
    double seen = Double.NaN;
    while (System.currentTimeMillis() < deadline) {
      seen = FakeTime.reportedOffsetSeconds(ax.nodes.get(i).port);
      if (Math.abs(seen - expectedS) < 60) {
        return seen;
      }
      Thread.sleep(250);
    }
    throw new AssertionError("node-" + i + " reports a clock offset of " + seen + " s, not about " + expectedS
        + " s: the injected clock fault did not take (libfaketime env " + FakeTime.LIBRARY + ")");
  }

  private static void sleepUntil(long epochMs) throws InterruptedException {
    long wait = epochMs - System.currentTimeMillis();
    if (wait > 0) {
      Thread.sleep(wait);
    }
  }
}
