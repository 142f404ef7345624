package ax.e2e;

import ax.testing.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The fault matrix's election race: three nodes launched at the same moment on an empty database — all
 * three migrate it and bid for the one lease at once — {@code -Dax.faults.starts} times (3 by default; the
 * matrix's 100 in {@code faults/run.sh --full}). Each time, every node's {@code /health?detail} is polled
 * from the first leader on for {@value #WATCH_MS} ms: no epoch may be claimed by two nodes, no poll round
 * may find two leaders, and the database's record of terms ({@code lease_terms}) must name one holder per
 * epoch and agree with what the nodes said.
 */
class ElectionRaceIT {
  private static final long WATCH_MS = 4_000;

  @Test
  void threeNodesStartedTogetherElectOneLeaderEveryTime() throws Exception {
    int starts = Integer.getInteger("ax.faults.starts", 3);
    int epochsWithTwoLeaders = 0;
    int pollsWithTwoLeaders = 0;
    int startsWithoutOneLeader = 0;
    int termsDisagreeing = 0;
    List<String> seen = new ArrayList<>();
    for (int s = 0; s < starts; s++) {
      long t0 = System.nanoTime();
      long[] phases = new long[3];
      try (TestPostgres pg = TestPostgres.create(); AxCluster ax = AxCluster.startTogether(pg, 3, Map.of())) {
        phases[0] = System.nanoTime();
        try (LeaderPolls polls = LeaderPolls.start(ax, 50)) {
          int leader = ax.awaitLeader(30_000);
          phases[1] = System.nanoTime();
          Thread.sleep(WATCH_MS);
          polls.close();
          Map<Long, String> terms = terms(ax);
          epochsWithTwoLeaders += polls.epochsWithTwoLeaders();
          pollsWithTwoLeaders += polls.roundsWithTwoLeaders();
          if (polls.leadersByEpoch().size() != 1) {
            startsWithoutOneLeader++; // a second term within seconds of the start: someone lost the lease
          }
          boolean agree = polls.leadersByEpoch().entrySet().stream()
              .allMatch(e -> e.getValue().size() == 1 && terms.containsKey(e.getKey())
                  && terms.get(e.getKey()).startsWith(e.getValue().iterator().next() + "/"));
          if (!agree) {
            termsDisagreeing++;
          }
          seen.add("start " + (s + 1) + ": node-" + leader + " first, " + polls.describe() + ", terms " + terms);
        }
        phases[2] = System.nanoTime();
      }
      long end = System.nanoTime();
      seen.add("(ms: launched " + (phases[0] - t0) / 1_000_000 + ", leader " + (phases[1] - phases[0]) / 1_000_000
          + ", watched " + (phases[2] - phases[1]) / 1_000_000 + ", stopped " + (end - phases[2]) / 1_000_000 + ")");
    }
    System.out.println("election race: " + String.join("; ", seen));
    Map<String, Object> figures = new HashMap<>();
    figures.put("starts", starts);
    figures.put("epochs_with_two_leaders", epochsWithTwoLeaders);
    figures.put("polls_with_two_leaders", pollsWithTwoLeaders);
    figures.put("starts_without_one_leader", startsWithoutOneLeader);
    figures.put("terms_disagreeing", termsDisagreeing);
    FaultRow.record("election-race", figures, "three nodes launched together on an empty database, " + starts
        + " times, each watched " + WATCH_MS + " ms from its first leader: epochs with two leaders "
        + epochsWithTwoLeaders + ", poll rounds with two leaders " + pollsWithTwoLeaders + ", starts that did not keep "
        + "one leader " + startsWithoutOneLeader + ", terms the nodes and lease_terms disagree on " + termsDisagreeing);
    assertEquals(0, epochsWithTwoLeaders, String.join("\n", seen));
    assertEquals(0, pollsWithTwoLeaders, String.join("\n", seen));
    assertEquals(0, termsDisagreeing, String.join("\n", seen));
    assertEquals(0, startsWithoutOneLeader, String.join("\n", seen));
  }

  /** epoch → holder ({@code <node id>/<process tag>}), as the database recorded the scheduler lease's terms. */
  private static Map<Long, String> terms(AxCluster ax) throws Exception {
    Map<Long, String> out = new HashMap<>();
    try (Connection c = ax.pg.connect(); ResultSet rs = c.createStatement().executeQuery(
        "SELECT epoch, holder FROM lease_terms WHERE name = 'scheduler' ORDER BY epoch")) {
      while (rs.next()) {
        out.put(rs.getLong(1), rs.getString(2));
      }
    }
    return out;
  }
}
