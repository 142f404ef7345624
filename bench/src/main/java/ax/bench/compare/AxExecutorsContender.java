package ax.bench.compare;

import ax.bench.Api;
import ax.bench.BenchExecutor;
import ax.bench.ExecutorBridge;
import ax.bench.Harness;
import ax.bench.Options;
import ax.bench.RecordTail;
import ax.bench.Report;
import ax.bench.peers.ExecutionLog;
import ax.bench.peers.Outcome;
import ax.bench.peers.Schedule;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * ax with its executors: the same {@code ax.jar server} as {@link AxContender}, plus two executor processes
 * ({@code ax.jar executor --processors noop}) connected to its bridge; tasks are processor tasks (no HTTP call),
 * so this is the fair counterpart of the peers' in-JVM no-op body. Lateness is taken where the work runs: the
 * executor's record file gives the wall clock at which each handler was called. Runs burst and spread only
 * ({@link #WORKLOADS}): it is not a {@link FullContender}.
 */
public final class AxExecutorsContender implements Contender {
  public static final String NAME = "ax-executors";
  static final Set<String> WORKLOADS = Set.of("burst", "spread");
  private static final int EXECUTORS = 2;

  private final Harness h;
  private final List<BenchExecutor> executors;
  private final List<RecordTail> records = new ArrayList<>();
  /** Task id → (phase log, index in its schedule), for every phase so far. */
  private final Map<String, Slot> byTaskId = new ConcurrentHashMap<>();
  private final Map<String, ExecutionLog> phases = new ConcurrentHashMap<>();

  private record Slot(ExecutionLog log, int index) {
  }

  private AxExecutorsContender(Harness h, List<BenchExecutor> executors) {
    this.h = h;
    this.executors = executors;
    executors.forEach(e -> records.add(RecordTail.fromStart(e.record())));
  }

  /** {@code label} names the server log, results/compare-ax-executors-&lt;label&gt;-server.log. */
  public static AxExecutorsContender start(String label, Options o, Path benchDir) throws Exception {
    ExecutorBridge bridge = ExecutorBridge.pick();
    Harness h = Harness.start("compare-" + NAME + "-" + label, bridge.onto(o), new Report("compare-" + NAME + "-" + label),
        benchDir, "512m");
    List<BenchExecutor> started = new ArrayList<>();
    try {
      Path jar = Harness.jar(o, benchDir);
      for (int i = 1; i <= EXECUTORS; i++) {
        started.add(BenchExecutor.start(jar, bridge, "compare-ex-" + i, 256, null));
      }
      return new AxExecutorsContender(h, started);
    } catch (Exception e) {
      for (BenchExecutor x : started) {
        x.stop();
      }
      h.close();
      throw e;
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Map<String, String> settings() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("version", "target/ax.jar as built (" + h.server.launch() + ") + "
        + EXECUTORS + " × java -Xmx256m -jar ax.jar executor --processors noop (default pools 8/16/8, buffer 256)");
    m.put("environment", h.server.describedEnv().toString().replaceAll("AX_PG_URL=[^,}]*", "AX_PG_URL=<fresh db>")
        .replaceAll("AX_(HTTP|BRIDGE)_PORT=\\d+", "AX_$1_PORT=<free port>")
        .replaceAll("AX_EXECUTOR_JWT_SECRET=[^,}]*", "AX_EXECUTOR_JWT_SECRET=<random>"));
    m.put("task", "processor task (processor noop, timeout_ms 30000), pushed over the event-bus bridge; lateness = the "
        + "executor's wall clock when its handler was called (record file) − trigger_time");
    m.put("ingest API", "signed POST /openapi/v1/tasks/batch, 1000 tasks per request (per-item 201)");
    m.put("scheduler CPU", "the ax server and both executor processes together");
    return m;
  }

  @Override
  public Ingested ingest(String phase, Schedule s, int threads, int chunk) throws Exception {
    ExecutionLog log = new ExecutionLog(s);
    phases.put(phase, log);
    String type = "bench.exec." + phase;
    Ingested ig = AxContender.ingest(h, s, threads, chunk, i -> Api.processorTask(type, i, s.trigger(i)),
        (id, i) -> byTaskId.put(id, new Slot(log, i)));
    return ig;
  }

  @Override
  public long executed(String phase) throws IOException {
    readRecords();
    return phases.get(phase).distinct();
  }

  @Override
  public Outcome outcome(String phase) throws IOException {
    readRecords();
    return phases.get(phase).outcome();
  }

  /** The lines the executors appended since the last call: {@code task_id attempt shard executor started_at_us}. */
  private synchronized void readRecords() throws IOException {
    for (RecordTail r : records) {
      r.newLines().forEach(this::record);
    }
  }

  private void record(String line) {
    if (line.isEmpty()) {
      return;
    }
    String[] f = line.split(" ");
    Slot slot = byTaskId.get(f[0]);
    if (slot != null && f.length >= 5) {
      slot.log().executed(slot.index(), Long.parseLong(f[4]) / 1_000);
    }
  }

  @Override
  public boolean alive() {
    return h.server.alive() && executors.stream().allMatch(e -> e.process().isAlive());
  }

  /** The scheduler and its executors: together they do what a peer's single JVM does. */
  @Override
  public double cpuSeconds() {
    double cpu = h.server.cpuSeconds();
    for (BenchExecutor e : executors) {
      cpu += e.cpuSeconds();
    }
    return cpu;
  }

  @Override
  public Connection connectDb() throws SQLException {
    return h.db.connect();
  }

  @Override
  public void close() {
    for (BenchExecutor e : executors) {
      try {
        e.stop();
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      }
    }
    h.close();
  }
}
