package ax.testing;

import java.net.URI;
import java.util.logging.Logger;
import org.junit.jupiter.api.Assumptions;

/**
 * A Redis server for tests, or a skipped test when there is none.
 *
 * <p>First match wins (decided once per JVM):
 * <ol>
 *   <li>{@code AX_TEST_REDIS_URL} ({@code redis://host:port}) — source "env";
 *   <li>a server on 127.0.0.1:6379 (300 ms TCP probe) — source "local" (CI runs Redis there);
 *   <li>Testcontainers {@code redis:7-alpine} if a Docker engine is reachable — source "testcontainers";
 *   <li>none: with {@code AX_TEST_REQUIRE_SERVICES=true} (CI) the test <b>fails</b>; otherwise it is
 *       <b>aborted</b>, so JUnit reports it as skipped together with the reason.
 * </ol>
 *
 * <p>Redis has no per-test database here; instead every instance hands out its own
 * {@link #keyPrefix()}, and a test must put every key it writes under it, so parallel tests and
 * forks never touch each other's keys.
 *
 * <pre>{@code
 * TestRedis redis = TestRedis.require();   // call it first thing in the test or @BeforeAll
 * RedisOptions o = new RedisOptions().setConnectionString(redis.url());
 * String key = redis.keyPrefix() + "nonce:ak1";
 * }</pre>
 */
public final class TestRedis {

  public static final String ENV_URL = "AX_TEST_REDIS_URL";

  private static final Logger LOG = Logger.getLogger(TestRedis.class.getName());
  private static final String LOCAL_HOST = "127.0.0.1";
  private static final int LOCAL_PORT = 6379;

  /** The server chosen for this JVM; null until found. A miss is not cached: the next call looks again. */
  private static Server server;

  private final Server srv;
  private final String keyPrefix;

  private TestRedis(Server srv) {
    this.srv = srv;
    this.keyPrefix = "axtest:" + TestPostgres.randomHex(6) + ":";
  }

  /**
   * A Redis to test against. Aborts the calling test (reported as skipped) when there is none, or
   * throws {@link AssertionError} when {@code AX_TEST_REQUIRE_SERVICES=true}.
   */
  public static TestRedis require() {
    Server s = server();
    if (s == null) {
      String why = "Redis not reachable at " + LOCAL_HOST + ":" + LOCAL_PORT + ", " + ENV_URL
          + " not set and no Docker";
      if (TestPostgres.requireServices()) {
        throw new AssertionError("Redis is required (" + TestPostgres.ENV_REQUIRE + "=true) but unreachable: "
            + why + ". Start redis-server or set " + ENV_URL + ".");
      }
      Assumptions.abort(why + ": skipping (set " + ENV_URL + " or start redis-server to run this test)");
    }
    return new TestRedis(s);
  }

  /** {@code redis://host:port} (for {@code AX_TEST_REDIS_URL} the URL as given). */
  public String url() {
    return srv.url;
  }

  public String host() {
    return srv.host;
  }

  public int port() {
    return srv.port;
  }

  /** "env", "local" or "testcontainers". */
  public String source() {
    return srv.source;
  }

  /** A prefix unique to this instance, e.g. {@code axtest:3f9a0c1b2e4d:}; put every key under it. */
  public String keyPrefix() {
    return keyPrefix;
  }

  @Override
  public String toString() {
    return "TestRedis[" + srv.source + " " + srv.url + " prefix " + keyPrefix + "]";
  }

  private static synchronized Server server() {
    if (server == null) {
      server = find();
      if (server != null) {
        LOG.info(() -> "test Redis: " + server.source + " " + server.url);
      }
    }
    return server;
  }

  private static Server find() {
    String env = System.getenv(ENV_URL);
    if (env != null && !env.isBlank()) {
      URI u = URI.create(env.trim());
      if ((!"redis".equals(u.getScheme()) && !"rediss".equals(u.getScheme())) || u.getHost() == null) {
        throw new IllegalArgumentException(ENV_URL + " must look like redis://host:port, got " + env);
      }
      int port = u.getPort() < 0 ? LOCAL_PORT : u.getPort();
      return new Server("env", env.trim(), u.getHost(), port);
    }
    if (TestPostgres.reachable(LOCAL_HOST, LOCAL_PORT)) {
      return new Server("local", "redis://" + LOCAL_HOST + ":" + LOCAL_PORT, LOCAL_HOST, LOCAL_PORT);
    }
    if (TestPostgres.Docker.available()) {
      var c = TestPostgres.Docker.startRedis();
      String host = c.getHost();
      int port = c.getMappedPort(6379);
      return new Server("testcontainers", "redis://" + host + ":" + port, host, port);
    }
    return null;
  }

  private record Server(String source, String url, String host, int port) {}
}
