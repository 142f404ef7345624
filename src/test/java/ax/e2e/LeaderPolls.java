package ax.e2e;

import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Polls {@code /health?detail=true} of every node of a cluster from a thread of its own and keeps who said
 * it led in which epoch (the node's own term: {@code role} and {@code epoch}). Two nodes naming the same
 * epoch as theirs — or two nodes leading in one poll round — is what the election must never allow. The
 * cluster's node list is read on each round, so a restarted node (a new port) is polled too.
 */
final class LeaderPolls implements AutoCloseable {
  private final AxCluster cluster;
  private final long intervalMs;
  private final Thread thread;
  private volatile boolean running = true;
  /** epoch → the nodes that said they led in it. */
  private final Map<Long, Set<String>> leadersByEpoch = new TreeMap<>();
  private int rounds;
  private int roundsWithTwoLeaders;
  private final List<String> twoLeaderSamples = new ArrayList<>();

  private LeaderPolls(AxCluster cluster, long intervalMs) {
    this.cluster = cluster;
    this.intervalMs = intervalMs;
    this.thread = new Thread(this::run, "leader-polls");
    thread.setDaemon(true);
  }

  static LeaderPolls start(AxCluster cluster, long intervalMs) {
    LeaderPolls p = new LeaderPolls(cluster, intervalMs);
    p.thread.start();
    return p;
  }

  private void run() {
    while (running) {
      List<String> leaders = new ArrayList<>();
      for (AxProcess node : List.copyOf(cluster.nodes)) {
        if (!node.isAlive()) {
          continue;
        }
        JsonObject h = Health.detail(node.port);
        if ("leader".equals(h.getString("role")) && h.getLong("epoch") != null) {
          String who = h.getString("node_id");
          leaders.add(who + "@" + h.getLong("epoch"));
          synchronized (this) {
            leadersByEpoch.computeIfAbsent(h.getLong("epoch"), e -> new TreeSet<>()).add(who);
          }
        }
      }
      synchronized (this) {
        rounds++;
        if (leaders.size() > 1) {
          roundsWithTwoLeaders++;
          if (twoLeaderSamples.size() < 5) {
            twoLeaderSamples.add(String.join(" & ", leaders));
          }
        }
      }
      try {
        Thread.sleep(intervalMs);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Epochs two or more nodes said they led. */
  synchronized int epochsWithTwoLeaders() {
    return (int) leadersByEpoch.values().stream().filter(s -> s.size() > 1).count();
  }

  /** Poll rounds in which two or more live nodes said they led (whatever the epochs). */
  synchronized int roundsWithTwoLeaders() {
    return roundsWithTwoLeaders;
  }

  synchronized int rounds() {
    return rounds;
  }

  /** epoch → nodes, as seen: e.g. {@code {1=[node-0], 2=[node-1]}}. */
  synchronized Map<Long, Set<String>> leadersByEpoch() {
    Map<Long, Set<String>> copy = new TreeMap<>();
    leadersByEpoch.forEach((e, s) -> copy.put(e, new TreeSet<>(s)));
    return copy;
  }

  synchronized String describe() {
    return rounds + " poll rounds, leaders by epoch " + leadersByEpoch + ", rounds with two leaders "
        + roundsWithTwoLeaders + (twoLeaderSamples.isEmpty() ? "" : " e.g. " + twoLeaderSamples);
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.interrupt();
    thread.join(5_000);
  }
}
