package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fault matrix's clock skew: two nodes, one of them 30 s ahead (libfaketime, {@link FakeTime}), with HTTP
 * tasks falling due all along while the leader is killed -9 and started again {@value #KILLS} times, so
 * leadership moves both ways between the skewed node and the true one. Leases and deaths are judged on
 * database time, so the skew must not matter: no epoch led by two nodes, no poll round with two leaders, no
 * call early, none lost; a second call is allowed only as a new attempt after its node died with the call in
 * flight (an attempt recorded {@code LOST}), and is counted apart. Run by {@code faults/run.sh --full}.
 */
class ClockSkewIT {
  private static final int KILLS = 4;
  private static final long WINDOW_MS = 50_000;
  private static final int TASKS = 500;

  @Test
  void aNodeThirtySecondsAheadNeverLeadsBesideAnotherAsLeadershipMovesBothWaysUnderLoad() throws Exception {
    FakeTime.assumeInstalled();
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 2, Map.of("AX_CLOCK_SYNC_INTERVAL_MS", "1000"),
             Map.of(1, FakeTime.offset("+30s")))) {
      ax.awaitLeader(30_000);
      double skew = ClockJumpIT.awaitOffset(ax, 1, 30);
      try (LeaderPolls polls = LeaderPolls.start(ax, 100)) {
        long first = System.currentTimeMillis() + 3_000;
        List<JsonObject> tasks = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
          tasks.add(new JsonObject().put("task_type", "clock.skew").put("dedupe", false).put("timeout_ms", 10_000)
              .put("callback_url", receiver.url()).put("trigger_time", Instant.ofEpochMilli(first + i * WINDOW_MS / TASKS).toString()));
        }
        List<Long> ids = new ArrayList<>();
        ExecutorIT.submitAll(ax.api(0), tasks.subList(0, TASKS / 2)).forEach(id -> ids.add(Long.parseLong(id)));
        ExecutorIT.submitAll(ax.api(1), tasks.subList(TASKS / 2, TASKS)).forEach(id -> ids.add(Long.parseLong(id)));

        List<String> moves = new ArrayList<>();
        for (int k = 0; k < KILLS; k++) {
          int leader = ax.awaitLeader(30_000);
          Thread.sleep(3_000); // the term does some work first
          long killedAt = System.currentTimeMillis();
          ax.nodes.get(leader).killHard();
          int next = ax.awaitLeader(30_000);
          moves.add("node-" + leader + "→node-" + next + " in " + (System.currentTimeMillis() - killedAt) + " ms");
          ax.restart(leader);
        }
        ax.awaitCount("SELECT count(*) FROM tasks WHERE status IN ('SUCCESS', 'FAILED')", ids.size(),
            Math.max(0, first + WINDOW_MS - System.currentTimeMillis()) + 60_000);
        Thread.sleep(2_000); // a repeated call would have arrived by now
        polls.close();
        Arrivals arrivals = Arrivals.of(receiver, ids, lostAttempts(ax));
        Set<String> leaders = new TreeSet<>();
        polls.leadersByEpoch().values().forEach(leaders::addAll);
        System.out.printf("clock skew: node-1 %+.0f s; moves %s; %s; %s%n", skew, moves, arrivals, polls.describe());
        Map<String, Object> figures = new HashMap<>(arrivals.figures());
        figures.put("epochs_with_two_leaders", polls.epochsWithTwoLeaders());
        figures.put("polls_with_two_leaders", polls.roundsWithTwoLeaders());
        figures.put("epochs", polls.leadersByEpoch().size());
        figures.put("skew_s", Math.round(skew));
        FaultRow.record("clock-skew", figures, "two nodes, node-1's clock " + Math.round(skew) + " s ahead (libfaketime); "
            + ids.size() + " HTTP tasks due over " + WINDOW_MS / 1000 + " s while the leader was killed -9 and restarted "
            + KILLS + " times (" + String.join(", ", moves) + "): " + arrivals + "; leaders by epoch " + polls.leadersByEpoch());
        assertEquals(0, polls.epochsWithTwoLeaders(), polls.describe());
        assertEquals(0, polls.roundsWithTwoLeaders(), polls.describe());
        assertEquals(Set.of("node-0", "node-1"), leaders, "leadership moved both ways: " + polls.describe());
        assertEquals(0, arrivals.early(), "calls before their trigger time");
        assertEquals(0, arrivals.lost(), "tasks never called");
        assertEquals(0, arrivals.runTwice(), "tasks called twice with no attempt recorded LOST to explain it");
        assertTrue(ax.count("SELECT count(*) FROM tasks WHERE status = 'SUCCESS'") == ids.size(), "every task succeeded");
      }
    }
  }

  /** task id → its attempts recorded LOST (its node died with the call in flight; it was fired again). */
  static Map<Long, Integer> lostAttempts(AxCluster ax) throws Exception {
    Map<Long, Integer> out = new HashMap<>();
    try (Connection c = ax.pg.connect(); ResultSet rs = c.createStatement().executeQuery(
        "SELECT task_id, count(*) FROM task_attempts WHERE outcome = 'LOST' GROUP BY task_id")) {
      while (rs.next()) {
        out.put(rs.getLong(1), rs.getInt(2));
      }
    }
    return out;
  }
}
