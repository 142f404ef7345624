package ax.e2e;

import ax.testing.TestPostgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * N scheduler nodes as separate processes on one fresh database, clustered over loopback (Hazelcast TCP
 * join to the listed members), each serving the API and the executor bridge. Timings are shortened so
 * fault tests run in seconds: lease TTL 3 s, executor heartbeat 500 ms (OFFLINE after 2 s), recovery
 * scan every second, retries after 200 ms.
 */
final class AxCluster implements AutoCloseable {
  static final String KEY = "cluster-key";
  static final String SECRET = "cluster-secret-0123456789abcdef";
  static final String JWT_SECRET = "executor-jwt-secret-for-tests-0123456789";

  final TestPostgres pg;
  final List<AxProcess> nodes = new ArrayList<>();
  final List<Integer> bridgePorts = new ArrayList<>();
  private final List<Integer> clusterPorts = new ArrayList<>();
  private final Map<String, String> extraEnv;
  private final Map<Integer, Map<String, String>> nodeEnv;

  private AxCluster(TestPostgres pg, Map<String, String> extraEnv, Map<Integer, Map<String, String>> nodeEnv) {
    this.pg = pg;
    this.extraEnv = extraEnv;
    this.nodeEnv = nodeEnv;
  }

  /** Starts {@code size} nodes; with size 1 the node runs without a cluster manager. */
  static AxCluster start(TestPostgres pg, int size, Map<String, String> extraEnv) throws Exception {
    return start(pg, size, extraEnv, Map.of());
  }

  /**
   * As {@link #start(TestPostgres, int, Map)}, with variables for single nodes on top ({@code nodeEnv} by node
   * index, e.g. one node's clock moved by {@link FakeTime}); they hold for the node's restarts too.
   */
  static AxCluster start(TestPostgres pg, int size, Map<String, String> extraEnv,
                         Map<Integer, Map<String, String>> nodeEnv) throws Exception {
    AxCluster c = new AxCluster(pg, extraEnv, nodeEnv);
    for (int i = 0; i < size; i++) {
      c.clusterPorts.add(AxProcess.freePort());
      c.bridgePorts.add(AxProcess.freePort());
    }
    try {
      for (int i = 0; i < size; i++) {
        c.nodes.add(AxProcess.start("server", c.envFor(i, size)));
      }
    } catch (Exception e) {
      c.close();
      throw e;
    }
    return c;
  }

  /**
   * As {@link #start(TestPostgres, int, Map)}, with every node launched at the same moment (one thread each)
   * instead of one after another: the election race of the fault matrix — nodes migrating the same empty
   * database and bidding for the same lease at once.
   */
  static AxCluster startTogether(TestPostgres pg, int size, Map<String, String> extraEnv) throws Exception {
    AxCluster c = new AxCluster(pg, extraEnv, Map.of());
    for (int i = 0; i < size; i++) {
      c.clusterPorts.add(AxProcess.freePort());
      c.bridgePorts.add(AxProcess.freePort());
    }
    java.util.concurrent.ExecutorService launch = java.util.concurrent.Executors.newFixedThreadPool(size);
    try {
      List<java.util.concurrent.Future<AxProcess>> started = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        Map<String, String> env = c.envFor(i, size);
        started.add(launch.submit(() -> AxProcess.start("server", env)));
      }
      Exception failed = null;
      for (java.util.concurrent.Future<AxProcess> f : started) {
        try {
          c.nodes.add(f.get());
        } catch (java.util.concurrent.ExecutionException e) {
          failed = failed != null ? failed : new Exception("a node did not start", e.getCause());
        }
      }
      if (failed != null) {
        c.close();
        throw failed;
      }
    } finally {
      launch.shutdown();
    }
    return c;
  }

  /** Starts node {@code i} again (after it was killed) with the same ports. */
  AxProcess restart(int i) throws Exception {
    return restart(i, Map.of());
  }

  /** As {@link #restart(int)}, with some variables set differently this time. */
  AxProcess restart(int i, Map<String, String> overrides) throws Exception {
    return restart(i, overrides, List.of());
  }

  /** As {@link #restart(int, Map)}, the JVM launched through {@code launcher} (e.g. {@code nice -n 10}). */
  AxProcess restart(int i, Map<String, String> overrides, List<String> launcher) throws Exception {
    Map<String, String> env = new HashMap<>(envFor(i, nodes.size()));
    env.putAll(overrides);
    AxProcess p = AxProcess.start("server", env, AxProcess.freePort(), launcher);
    nodes.set(i, p);
    return p;
  }

  private Map<String, String> envFor(int i, int size) {
    Map<String, String> env = new HashMap<>(AxProcess.env(
        "AX_PG_URL", pg.url(),
        "AX_NODE_ID", "node-" + i,
        "AX_BOOTSTRAP_KEY", KEY + ":" + SECRET + ":cluster",
        "AX_CALLBACK_ALLOWLIST", "127.0.0.1",
        "AX_RATE_LIMIT", "100000",
        "AX_LEASE_TTL_MS", "3000",
        "AX_RECOVERY_INTERVAL_MS", "1000",
        "AX_RETRY_BACKOFF", "200ms,200ms,200ms",
        "AX_EXECUTOR_JWT_SECRET", JWT_SECRET,
        "AX_EXECUTOR_HEARTBEAT_MS", "500",
        "AX_ACK_TIMEOUT_MS", "2000",
        "AX_BRIDGE_HOST", "127.0.0.1",
        "AX_BRIDGE_PORT", Integer.toString(bridgePorts.get(i))));
    if (size > 1) {
      env.put("AX_CLUSTER_MEMBERS", clusterPorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(",")));
      env.put("AX_CLUSTER_PORT", Integer.toString(clusterPorts.get(i)));
    }
    env.putAll(extraEnv);
    env.putAll(nodeEnv.getOrDefault(i, Map.of()));
    return env;
  }

  /** Comma list of every node's bridge, for an executor's --servers. */
  String servers() {
    return bridgePorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
  }

  String server(int i) {
    return "127.0.0.1:" + bridgePorts.get(i);
  }

  /** The Prometheus text of a node's /metrics. */
  String metrics(int node) throws Exception {
    return Health.metrics(nodes.get(node).port);
  }

  ApiClient api(int node) {
    return new ApiClient(nodes.get(node).port, KEY, SECRET);
  }

  /** Index of the node whose /health says leader, waiting up to {@code timeoutMs}. */
  int awaitLeader(long timeoutMs) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (System.currentTimeMillis() < deadline) {
      for (int i = 0; i < nodes.size(); i++) {
        AxProcess n = nodes.get(i);
        if (n.isAlive() && "leader".equals(Health.of(n.port).getString("role"))) {
          return i;
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no leader within " + timeoutMs + " ms");
  }

  /** Mints an executor token with the CLI, as an operator would. */
  static String token(String executorId) throws Exception {
    String jar = System.getProperty("ax.jar", "target/ax.jar");
    ProcessBuilder pb = new ProcessBuilder(AxProcess.javaBin(), "-jar", jar, "executor-token", "--executor-id",
        executorId).redirectErrorStream(false);
    pb.environment().put("AX_EXECUTOR_JWT_SECRET", JWT_SECRET);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes()).trim();
    if (p.waitFor() != 0 || out.isEmpty()) {
      throw new IllegalStateException("executor-token failed: " + new String(p.getErrorStream().readAllBytes()));
    }
    String[] lines = out.split("\n");
    return lines[lines.length - 1].trim();
  }

  int count(String sql) throws Exception {
    try (Connection c = pg.connect(); ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  void awaitCount(String sql, int expected, long timeoutMs) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    int n = -1;
    while (System.currentTimeMillis() < deadline) {
      n = count(sql);
      if (n == expected) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError(sql + " = " + n + ", expected " + expected + " within " + timeoutMs + " ms" + logTail());
  }

  /** The last lines of every node's log, for a failure message that shows what the nodes saw. */
  String logTail() {
    StringBuilder logs = new StringBuilder();
    for (AxProcess p : nodes) {
      String out = p.output();
      logs.append("\n--- node log (tail) ---\n").append(out.substring(Math.max(0, out.length() - 6000)));
    }
    return logs.toString();
  }

  /** The task's row and attempts as text, for a failure message that explains itself. */
  String describeTask(String id) {
    try {
      return rowsAsText("SELECT task_id, status, attempt, executor_id, retry_count, next_trigger_time, lease_deadline,"
          + " updated_at FROM tasks WHERE task_id = " + Long.parseLong(id))
          + rowsAsText("SELECT attempt, executor_id, outcome, error FROM task_attempts WHERE task_id = "
          + Long.parseLong(id) + " ORDER BY attempt");
    } catch (Exception e) {
      return "(could not read task " + id + ": " + e + ")";
    }
  }

  String rowsAsText(String sql) throws Exception {
    StringBuilder out = new StringBuilder();
    try (Connection c = pg.connect(); ResultSet rs = c.createStatement().executeQuery(sql)) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        out.append("\n ");
        for (int i = 1; i <= columns; i++) {
          out.append(' ').append(rs.getMetaData().getColumnLabel(i)).append('=').append(rs.getString(i));
        }
      }
    }
    return out.length() == 0 ? "\n  (no rows: " + sql + ")" : out.toString();
  }

  @Override
  public void close() throws Exception {
    for (AxProcess p : nodes) {
      p.close();
    }
  }
}
