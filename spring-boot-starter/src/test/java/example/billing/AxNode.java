package example.billing;

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
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One scheduler node, {@code ax.jar server}, started as an operator starts it: its own process on a fresh
 * database, with an access key, an executor JWT secret and a bridge on loopback. Retries come after
 * 200 ms and heartbeats every 500 ms so failures and registrations show within seconds.
 */
final class AxNode implements AutoCloseable {
  static final String KEY = "spring-it-key";
  static final String SECRET = "spring-it-secret-0123456789abcdef";
  static final String JWT_SECRET = "spring-it-executor-jwt-secret-0123456789";

  private final Process process;
  private final Path log;
  final int httpPort;
  final int bridgePort;

  private AxNode(Process process, Path log, int httpPort, int bridgePort) {
    this.process = process;
    this.log = log;
    this.httpPort = httpPort;
    this.bridgePort = bridgePort;
  }

  /** {@code -Dax.jar}, which failsafe sets to the root build's target/ax.jar. */
  static String jar() {
    String jar = System.getProperty("ax.jar", "../target/ax.jar");
    if (!new File(jar).isFile()) {
      throw new IllegalStateException(jar + " is missing: build the scheduler first (`mvn -B verify` at the root"
          + " builds it before this module)");
    }
    return jar;
  }

  static AxNode start(String pgUrl) throws Exception {
    int http = freePort();
    int bridge = freePort();
    Path log = Files.createTempFile("ax-spring-it-", ".log");
    ProcessBuilder pb = new ProcessBuilder(javaBin(), "-Xmx512m", "-jar", jar(), "server")
        .redirectErrorStream(true).redirectOutput(log.toFile());
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("AX_"));
    env.putAll(Map.of(
        "AX_PG_URL", pgUrl,
        "AX_NODE_ID", "spring-it-node",
        "AX_HTTP_PORT", Integer.toString(http),
        "AX_BRIDGE_HOST", "127.0.0.1",
        "AX_BRIDGE_PORT", Integer.toString(bridge),
        "AX_BOOTSTRAP_KEY", KEY + ":" + SECRET + ":spring-it",
        "AX_EXECUTOR_JWT_SECRET", JWT_SECRET,
        "AX_EXECUTOR_HEARTBEAT_MS", "500",
        "AX_RETRY_BACKOFF", "200ms",
        "AX_RATE_LIMIT", "10000"));
    AxNode node = new AxNode(pb.start(), log, http, bridge);
    try {
      node.awaitHealthy(Duration.ofSeconds(90));
    } catch (Exception e) {
      node.close();
      throw e;
    }
    return node;
  }

  /** Mints an executor token with the CLI, as an operator would. */
  static String token(String executorId) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(javaBin(), "-jar", jar(), "executor-token", "--executor-id", executorId);
    pb.environment().put("AX_EXECUTOR_JWT_SECRET", JWT_SECRET);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes()).trim();
    String err = new String(p.getErrorStream().readAllBytes());
    if (p.waitFor() != 0 || out.isEmpty()) {
      throw new IllegalStateException("executor-token failed: " + err);
    }
    List<String> lines = out.lines().toList();
    return lines.get(lines.size() - 1).trim();
  }

  String bridge() {
    return "127.0.0.1:" + bridgePort;
  }

  SignedApi api() {
    return new SignedApi(httpPort, KEY, SECRET);
  }

  private void awaitHealthy(Duration timeout) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("ax exited with " + process.exitValue() + ":\n" + output());
      }
      try {
        URI health = URI.create("http://127.0.0.1:" + httpPort + "/health");
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(health)
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

  /** The node's log, for failure messages. */
  String output() {
    try {
      String all = Files.readString(log);
      return all.substring(Math.max(0, all.length() - 8000));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** SIGTERM, then kill after 15 s. */
  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }
}
