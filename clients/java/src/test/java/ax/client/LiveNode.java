package ax.client;

import com.sun.net.httpserver.HttpServer;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler node started from target/ax.jar as a user starts it, on a PostgreSQL database of its own
 * (created here, dropped by {@link #close()}), with one access key, and an HTTP target on 127.0.0.1 for
 * its tasks to call. PostgreSQL is {@code AX_TEST_PG_URL} ({@code postgresql://user[:pw]@host:port/db},
 * an admin URL) or the one on 127.0.0.1:5432 with user postgres, as CI runs it.
 */
final class LiveNode implements AutoCloseable {
  static final String ACCESS_KEY = "client-it";
  static final String SECRET = "client-it-secret-0123456789abcdef";

  private final Process process;
  private final Path log;
  private final String database;
  private final URI admin;
  private final HttpServer target;
  final int port;

  private LiveNode(Process process, Path log, String database, URI admin, HttpServer target, int port) {
    this.process = process;
    this.log = log;
    this.database = database;
    this.admin = admin;
    this.target = target;
    this.port = port;
  }

  static LiveNode start() throws Exception {
    String jar = System.getProperty("ax.jar", "../../target/ax.jar");
    if (!new File(jar).isFile()) {
      throw new IllegalStateException(jar + " is missing: build the scheduler first (the root build does)");
    }
    URI admin = URI.create(System.getenv().getOrDefault("AX_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/postgres"));
    String database = "ax_client_" + HexFormat.of().formatHex(new SecureRandom().generateSeed(6));
    try (Connection c = connect(admin, adminDatabase(admin)); Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + database);
    }
    HttpServer target = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    target.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      byte[] answer = "{\"handled\":true}".getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, answer.length);
      exchange.getResponseBody().write(answer);
      exchange.close();
    });
    target.start();

    int port = freePort();
    Path log = Files.createTempFile("ax-client-it-", ".log");
    ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx384m", "-jar", jar, "server").redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("AX_"));
    pb.environment().putAll(Map.of(
        "AX_PG_URL", "postgresql://" + admin.getRawUserInfo() + "@" + admin.getHost() + ":" + port(admin) + "/" + database,
        "AX_HTTP_PORT", Integer.toString(port),
        "AX_NODE_ID", "client-it",
        "AX_BOOTSTRAP_KEY", ACCESS_KEY + ":" + SECRET + ":clients",
        "AX_CALLBACK_ALLOWLIST", "127.0.0.1",
        "AX_RATE_LIMIT", "1000"));
    LiveNode node = new LiveNode(pb.start(), log, database, admin, target, port);
    try {
      node.awaitHealthy(Duration.ofSeconds(90));
    } catch (Exception e) {
      node.close();
      throw e;
    }
    return node;
  }

  String baseUrl() {
    return "http://127.0.0.1:" + port;
  }

  /** A URL on the test's HTTP target, which answers 200 to any POST. */
  String callbackUrl() {
    return "http://127.0.0.1:" + target.getAddress().getPort() + "/done";
  }

  String output() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private void awaitHealthy(Duration timeout) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("ax exited with " + process.exitValue() + ":\n" + output());
      }
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(baseUrl() + "/health"))
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

  @Override
  public void close() throws Exception {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
    target.stop(0);
    try (Connection c = connect(admin, adminDatabase(admin)); Statement st = c.createStatement()) {
      st.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }
  }

  private static Connection connect(URI server, String db) throws Exception {
    String[] user = server.getRawUserInfo().split(":", 2);
    return DriverManager.getConnection("jdbc:postgresql://" + server.getHost() + ":" + port(server) + "/" + db,
        user[0], user.length > 1 ? java.net.URLDecoder.decode(user[1], StandardCharsets.UTF_8) : "");
  }

  private static int port(URI server) {
    return server.getPort() < 0 ? 5432 : server.getPort();
  }

  private static String adminDatabase(URI server) {
    String path = server.getPath();
    return path == null || path.length() <= 1 ? "postgres" : path.substring(1);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
