package ax.bench;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code failover}: the first burst after a leader change (issue 16, "a warm successor"). Two clustered
 * nodes on one database: the harness's node leads, a second one stands by from the start. After the
 * warm-up bursts the leader drains a measured burst of N (the warm figure); then N more tasks are
 * submitted due at one instant, the leader is killed with SIGKILL {@code --kill-before-s} (10) before
 * that instant, and the standby, which has never led, takes over when the lease runs out
 * ({@code AX_LEASE_TTL_MS}, 5 s here) and fires them. Reported: both drain times (last arrival − due)
 * and their ratio; the target is ≤ 2×. Missing, duplicate or early executions fail the run as in
 * {@code burst}.
 *
 * <p>With {@code --restart} it is the other half of the target, the first burst after a restart: one
 * node, no standby; it is killed the same way and a fresh process of the same jar is started on the same
 * database at once, so its JIT is as cold as a node's after a crash or a deploy. It waits out the dead
 * process's lease (the TTL), then fires the burst.
 */
final class Failover {
  static final String LEASE_TTL_MS = "5000";

  private Failover() {
  }

  /**
   * The two nodes' cluster settings; the harness's node gets them through {@code --env} defaults,
   * the standby gets its own port.
   */
  record Cluster(int leaderPort, int standbyPort) {
    static Cluster pick() throws java.io.IOException {
      return new Cluster(ServerProcess.freePort(), ServerProcess.freePort());
    }

    String members() {
      return "127.0.0.1:" + leaderPort + ",127.0.0.1:" + standbyPort;
    }

    void applyTo(Options o) {
      o.defaultEnv("AX_CLUSTER_MEMBERS", members());
      o.defaultEnv("AX_CLUSTER_PORT", Integer.toString(leaderPort));
      o.defaultEnv("AX_NODE_ID", "bench-leader");
      o.defaultEnv("AX_LEASE_TTL_MS", LEASE_TTL_MS);
    }
  }

  static void run(Harness h, Cluster cluster) throws Exception {
    if (h.options.flag("restart")) {
      runAndReplace(h, null);
      return;
    }
    Options o = h.options;
    // The standby runs through the warm-up and the warm burst, as a standby in production would.
    try (ServerProcess standby = h.startNode(Map.of("AX_CLUSTER_PORT", Integer.toString(cluster.standbyPort()),
        "AX_NODE_ID", "bench-standby"), "failover-standby-server.log")) {
      h.report.setup("standby", "pid " + standby.pid() + ", log " + standby.log());
      standby.awaitHealthy(o.longValue("health-timeout-s", 60) * 1000);
      awaitRoles(h.server, standby);
      runAndReplace(h, standby);
    }
  }

  /**
   * The warm burst, then the measured one around the kill. {@code standby} takes over when there is one;
   * without, a new process is started the moment the leader is killed.
   */
  private static void runAndReplace(Harness h, ServerProcess standby) throws Exception {
    Options o = h.options;
    Report r = h.report;
    int n = o.intValue("n", 20_000);
    long leadMs = o.longValue("lead-s", 40) * 1000;
    long killBeforeMs = o.longValue("kill-before-s", 10) * 1000;
    long drainMs = o.longValue("drain-timeout-s", 120) * 1000;
    int concurrency = o.intValue("concurrency", 8);
    if (killBeforeMs >= leadMs) {
      throw new IllegalArgumentException("--kill-before-s must be less than --lead-s");
    }
    Receiver.Snapshot warm = Bench.burst(h, Bench.warmUp(h, o).isEmpty() ? "warm burst on the leader"
        : "warm burst on the leader (after warm-up)", n, o.longValue("warm-lead-s", 60) * 1000, concurrency,
        drainMs, 3_000);
    // its tasks share one trigger time, so the last arrival's lateness is the drain time
    long warmDrain = warm.missing() == 0 ? warm.lateness().getMaxValue() : -1;

    boolean restart = standby == null;
    String successorName = restart ? "restarted node" : "standby";
    String event = restart ? "restart" : "leader change";
    r.section("burst after a " + event);
    r.result("tasks", n + " all due at start+" + leadMs / 1000.0 + " s; the leader gets SIGKILL "
        + killBeforeMs / 1000.0 + " s before that, " + (restart
        ? "a new process is started at once and leads after the dead one's lease TTL ("
        : "the standby (never led) takes over after the lease TTL (") + LEASE_TTL_MS + " ms)");
    long due = System.currentTimeMillis() + leadMs;
    long[] triggers = new long[n];
    Arrays.fill(triggers, due);
    Map<String, Long> expected = new ConcurrentHashMap<>();
    Map<String, Long> acceptedAt = new ConcurrentHashMap<>();
    Receiver.Tracker tracker = h.receiver.track(expected, acceptedAt);
    Bench.Submitted s = Bench.submitAll(h, "failover", triggers, concurrency, expected, acceptedAt);
    Bench.reportSubmission(r, s, n, concurrency, due);
    long killAt = due - killBeforeMs;
    if (System.currentTimeMillis() > killAt) {
      throw new IllegalStateException("submission ended after the kill instant; raise --lead-s");
    }
    Thread.sleep(killAt - System.currentTimeMillis());
    double successorCpu0 = restart ? 0 : standby.cpuSeconds();
    h.server.kill();
    long killedAt = System.currentTimeMillis();
    System.out.println("[failover] leader pid " + h.server.pid() + " killed " + (due - killedAt) + " ms before due");
    r.result("leader killed", (due - killedAt) + " ms before due");
    ServerProcess successor = restart ? h.startNode(Map.of(), "restarted-server.log") : standby;
    try {
      if (restart) {
        r.setup("restarted node", "pid " + successor.pid() + ", log " + successor.log());
        successor.awaitHealthy(o.longValue("health-timeout-s", 60) * 1000);
        r.result("restarted node healthy", (System.currentTimeMillis() - killedAt) + " ms after the kill");
      }
      long tookOver = awaitLeader(successor, killedAt + 60_000);
      r.result(successorName + " leading", tookOver < 0 ? "not within 60 s"
          : (tookOver - killedAt) + " ms after the kill (" + (due - tookOver) + " ms before due; seen on /health "
          + "every 50 ms)");
      awaitAll(successor, tracker, due + drainMs);
      Thread.sleep(3_000); // duplicates
      Receiver.Snapshot snap = tracker.snapshot();
      if (snap.expectedReceived() > 0) {
        r.result("first execution after due", (snap.firstArrivalMs() - due) + " ms");
      }
      if (snap.missing() == 0) {
        long drain = snap.lastArrivalMs() - due;
        r.result("drain time (last arrival − trigger)", drain + " ms");
        if (warmDrain > 0) {
          r.result("after the " + event + " / warm",
              Report.fmt((double) drain / warmDrain, 2) + "× (" + drain + " vs " + warmDrain + " ms; target ≤ 2×)");
        }
      } else {
        r.result("drain time", "n/a: " + snap.missing() + " missing");
      }
      Bench.reportExecutions(r, snap);
      r.result("CPU used", successorName + " " + Report.fmt(successor.cpuSeconds() - successorCpu0, 1) + " s from the kill");
      Bench.judge(r, snap, s, true);
      if (!successor.alive()) {
        r.fail("the " + successorName + " exited during the run; last lines of its log:\n" + successor.tail(20));
      }
    } finally {
      if (restart) {
        successor.close(); // the harness closes the node it started, the standby its try
      }
    }
  }

  private static void awaitRoles(ServerProcess leader, ServerProcess standby) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 60_000;
    while (!("leader".equals(leader.role()) && "standby".equals(standby.role()))) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("roles after 60 s: first node " + leader.role() + ", second "
            + standby.role() + " (expected leader and standby)");
      }
      Thread.sleep(200);
    }
  }

  /** When {@code node} first says it leads, polled every 50 ms; -1 past the deadline. */
  private static long awaitLeader(ServerProcess node, long deadlineMs) throws InterruptedException {
    while (System.currentTimeMillis() < deadlineMs) {
      if ("leader".equals(node.role())) {
        return System.currentTimeMillis();
      }
      Thread.sleep(50);
    }
    return -1;
  }

  private static void awaitAll(ServerProcess node, Receiver.Tracker tracker, long deadlineMs)
      throws InterruptedException {
    long total = tracker.snapshot().expectedTotal();
    long lastPrint = 0;
    while (tracker.expectedReceived() < total && System.currentTimeMillis() < deadlineMs && node.alive()) {
      if (System.currentTimeMillis() - lastPrint >= 5_000) {
        lastPrint = System.currentTimeMillis();
        System.out.println("[failover] executed " + tracker.expectedReceived() + "/" + total);
      }
      Thread.sleep(100);
    }
  }
}
