package ax.e2e;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** target/ax.jar started as a user would start it, in its own process, with its output in a log file. */
final class AxProcess implements AutoCloseable {
  private final Process process;
  final int port;
  final Path log;

  private AxProcess(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  static AxProcess start(String command, Map<String, String> env) throws Exception {
    return start(command, env, freePort());
  }

  static AxProcess start(String command, Map<String, String> env, int port) throws Exception {
    return start(command, env, port, List.of());
  }

  /** As {@link #start(String, Map, int)}, the JVM launched through {@code launcher} (e.g. {@code nice -n 10}). */
  static AxProcess start(String command, Map<String, String> env, int port, List<String> launcher) throws Exception {
    String jar = System.getProperty("ax.jar", "target/ax.jar");
    if (!new File(jar).isFile()) {
      throw new IllegalStateException(jar + " is missing: run `mvn package` (the e2e tests run in `verify`)");
    }
    Path log = Files.createTempFile("ax-e2e-", ".log");
    List<String> cmd = new ArrayList<>(launcher);
    cmd.addAll(List.of(javaBin(), "-Xmx512m"));
    cmd.addAll(nodeJvmFlags());
    cmd.addAll(List.of("-jar", jar, command));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    Map<String, String> e = pb.environment();
    e.keySet().removeIf(k -> k.startsWith("AX_"));
    e.putAll(env);
    e.put("AX_HTTP_PORT", Integer.toString(port));
    AxProcess p = new AxProcess(pb.start(), port, log);
    try {
      p.awaitHealthy(Duration.ofSeconds(90));
    } catch (Exception | Error notHealthy) {
      p.killHard(); // a node that never became healthy must not outlive the test that started it
      throw notHealthy;
    }
    return p;
  }

  /**
   * {@code -Dax.nodeJvmFlags="…"}, split at spaces: JVM flags for every node a test starts, as the bench's
   * {@code --ax-jvm-flags} (e.g. the README's class-data sharing archive); none by default.
   */
  private static List<String> nodeJvmFlags() {
    String flags = System.getProperty("ax.nodeJvmFlags", "").trim();
    return flags.isEmpty() ? List.of() : List.of(flags.split("\\s+"));
  }

  static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * A port nothing listens on now and that this JVM has not handed out before, below the kernel's ephemeral
   * range (32768-60999 on Linux). The second condition matters: a cluster's ports are all chosen before its
   * nodes start, and the kernel may offer a port chosen (and released) a moment ago again — once a node's
   * HTTP port came back equal to its own Hazelcast port. The range matters for the same reason: a port the
   * kernel hands out for listening is also one it hands to outgoing connections, and in the full fault run
   * one of three nodes started together exited "port … is already in use" — another process's connection
   * had taken its HTTP port between the choice and the bind.
   */
  static synchronized int freePort() throws IOException {
    for (int tries = 0; tries < 2_000; tries++) {
      int port = FIRST_PORT + PORTS.nextInt(PORT_COUNT);
      if (HANDED_OUT.contains(port)) {
        continue;
      }
      try (ServerSocket s = new ServerSocket(port)) {
        HANDED_OUT.add(port);
        return port;
      } catch (IOException taken) {
        // something listens there; try another
      }
    }
    throw new IOException("no free port in " + FIRST_PORT + "-" + (FIRST_PORT + PORT_COUNT - 1));
  }

  private static final int FIRST_PORT = 20_000;
  private static final int PORT_COUNT = 12_000;
  private static final java.util.Random PORTS = new java.util.Random();
  private static final java.util.Set<Integer> HANDED_OUT = new java.util.HashSet<>();

  private void awaitHealthy(Duration timeout) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("ax exited with " + process.exitValue() + ":\n" + output());
      }
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
            .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("ax did not become healthy within " + timeout + ":\n" + output());
  }

  String output() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** kill -9: no shutdown hook runs, the lease is not resigned, nothing is flushed. */
  void killHard() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** SIGTERM: a graceful stop. */
  int stopGracefully() throws InterruptedException {
    process.destroy();
    return process.waitFor();
  }

  /** Sends a signal by name (STOP, CONT, TERM, KILL) with kill(1). */
  void signal(String name) throws Exception {
    Signals.send(process, name);
  }

  long pid() {
    return process.pid();
  }

  /**
   * Heap in use right after a full collection, in bytes (jcmd GC.run, then the JVM's own figure from
   * /metrics): what the node holds, not what it has not yet collected.
   */
  long heapAfterGc() throws Exception {
    Process gc = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
        Long.toString(process.pid()), "GC.run").redirectErrorStream(true).start();
    gc.getInputStream().readAllBytes();
    gc.waitFor();
    long used = 0;
    for (String line : Health.metrics(port).split("\n")) {
      if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
        used += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return used;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  static Map<String, String> env(String... kv) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(15, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }
}
