package ax.bench.compare;

import ax.bench.BenchDb;
import ax.bench.ServerProcess;
import ax.bench.peers.Outcome;
import ax.bench.peers.RecurringOutcome;
import ax.bench.peers.RecurringPlan;
import ax.bench.peers.Schedule;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A peer scheduler (db-scheduler or Quartz) in a child JVM — {@code java -Xmx512m -cp <this jar>
 * ax.bench.Bench peer <name> <jdbc url>}, the same heap as ax gets — on its own fresh database, driven
 * through {@link ax.bench.peers.PeerMain}'s line protocol. The child's stderr goes to
 * {@code results/compare-<name>-<label>.log}.
 */
public final class PeerContender implements FullContender {
  private final String name;
  private final BenchDb db;
  private final Process process;
  private final BufferedReader out;
  private final Writer in;
  private final Map<String, String> settings;

  private PeerContender(String name, BenchDb db, Process process) throws IOException {
    this.name = name;
    this.db = db;
    this.process = process;
    this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    JsonObject ready = answer();
    if (!ready.getBoolean("ready", false)) {
      throw new IllegalStateException(name + " did not start: " + ready.encode());
    }
    Map<String, String> s = new LinkedHashMap<>();
    call("settings").forEach(e -> s.put(e.getKey(), String.valueOf(e.getValue())));
    this.settings = s;
  }

  public static PeerContender start(String name, String label, ax.bench.Options o, Path resultsDir) throws Exception {
    BenchDb db = new BenchDb(o.string("pg", "postgresql://postgres@127.0.0.1:5432"));
    db.keep(o.flag("keep-db"));
    Path log = resultsDir.resolve("compare-" + name + "-" + label + ".log");
    try {
      Files.createDirectories(resultsDir);
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      ProcessBuilder pb = new ProcessBuilder(List.of(java, "-Xmx" + o.string("heap", "512m"),
          "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path"),
          "ax.bench.Bench", "peer", name, db.jdbcUrl()));
      pb.redirectError(log.toFile());
      return new PeerContender(name, db, pb.start());
    } catch (Exception | Error e) {
      db.close();
      throw e;
    }
  }

  private synchronized JsonObject call(String command) throws IOException {
    if (!process.isAlive()) {
      throw new IllegalStateException(name + " exited (code " + process.exitValue() + ")");
    }
    in.write(command + "\n");
    in.flush();
    JsonObject a = answer();
    if (a.containsKey("error")) {
      throw new IllegalStateException(name + ": " + command + " failed: " + a.getString("error"));
    }
    return a;
  }

  private JsonObject answer() throws IOException {
    String line;
    while ((line = out.readLine()) != null) {
      if (line.startsWith("@@ ")) {
        return new JsonObject(line.substring(3));
      }
    }
    throw new IllegalStateException(name + " closed its output (exit code "
        + (process.isAlive() ? "?" : Integer.toString(process.exitValue())) + ")");
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Map<String, String> settings() {
    Map<String, String> m = new LinkedHashMap<>(settings);
    m.put("process", "child JVM -Xmx512m running the bench jar's hidden `peer` subcommand; ingest from 4 threads in that JVM");
    return m;
  }

  @Override
  public Ingested ingest(String phase, Schedule s, int threads, int chunk) throws Exception {
    JsonObject a = call("ingest " + phase + " " + s.n() + " " + s.firstDueMs() + " " + s.windowMs() + " " + threads
        + " " + chunk);
    return new Ingested(a.getLong("ms"), a.getLong("accepted"), a.getLong("rejected"), a.getString("sample"));
  }

  @Override
  public long executed(String phase) throws Exception {
    return call("executed " + phase).getLong("executed");
  }

  @Override
  public Outcome outcome(String phase) throws Exception {
    JsonObject a = call("outcome " + phase);
    if (a.getLong("unknown", 0L) > 0) {
      throw new IllegalStateException(name + " executed " + a.getLong("unknown") + " tasks of no announced phase "
          + "(a stored far-future task ran)");
    }
    return Outcome.fromJson(a);
  }

  @Override
  public Ingested scheduleRecurring(String phase, RecurringPlan p, int threads, int chunk) throws Exception {
    JsonObject a = call("recurring " + phase + " " + p.n() + " " + p.firstDueMs() + " " + p.periodMs() + " " + p.slots()
        + " " + p.aligned() + " " + threads + " " + chunk);
    return new Ingested(a.getLong("ms"), a.getLong("accepted"), a.getLong("rejected"), a.getString("sample"));
  }

  @Override
  public long occurrences(String phase) throws Exception {
    return call("occurrences " + phase).getLong("received");
  }

  @Override
  public RecurringOutcome recurringOutcome(String phase) throws Exception {
    JsonObject a = call("routcome " + phase);
    if (a.getLong("unknown_phase", 0L) > 0) {
      throw new IllegalStateException(name + " ran " + a.getLong("unknown_phase") + " tasks of no announced phase");
    }
    return RecurringOutcome.fromJson(a);
  }

  @Override
  public long storeFuture(long offset, long count, long startMs, long spanMs) throws Exception {
    return call("store " + offset + " " + count + " " + startMs + " " + spanMs).getLong("ms");
  }

  @Override
  public boolean alive() {
    return process.isAlive();
  }

  @Override
  public double cpuSeconds() {
    return ServerProcess.cpuSeconds(process.pid());
  }

  @Override
  public Connection connectDb() throws SQLException {
    return db.connect();
  }

  @Override
  public void close() {
    try {
      if (process.isAlive()) {
        call("stop");
      }
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (Exception e) {
      process.destroyForcibly();
    } finally {
      db.close();
    }
  }
}
