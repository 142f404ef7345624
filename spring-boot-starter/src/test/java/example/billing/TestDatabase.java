package example.billing;

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

/**
 * A fresh, empty PostgreSQL database for one test class, dropped again by {@link #close()}: the
 * scheduler's TestPostgres cut down to what this module needs (it must not depend on the scheduler's
 * test classes). The server: {@code AX_TEST_PG_URL} ({@code postgresql://user[:pw]@host:port/db}, an
 * admin URL) if set, else PostgreSQL on 127.0.0.1:5432 as {@code postgres} with trust, as in CI.
 */
final class TestDatabase implements AutoCloseable {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final String host;
  private final int port;
  private final String user;
  private final String password;
  private final String admin;
  private final String name;

  private TestDatabase(String host, int port, String user, String password, String admin, String name) {
    this.host = host;
    this.port = port;
    this.user = user;
    this.password = password;
    this.admin = admin;
    this.name = name;
  }

  static TestDatabase create() throws SQLException {
    String env = System.getenv("AX_TEST_PG_URL");
    URI u = URI.create(env != null && !env.isBlank() ? env.trim() : "postgresql://postgres@127.0.0.1:5432/postgres");
    String user = "postgres";
    String password = "";
    if (u.getRawUserInfo() != null) {
      String[] parts = u.getRawUserInfo().split(":", 2);
      user = URLDecoder.decode(parts[0], StandardCharsets.UTF_8);
      password = parts.length > 1 ? URLDecoder.decode(parts[1], StandardCharsets.UTF_8) : "";
    }
    String admin = u.getPath() == null || u.getPath().length() <= 1 ? "postgres" : u.getPath().substring(1);
    byte[] suffix = new byte[6];
    RANDOM.nextBytes(suffix);
    TestDatabase db = new TestDatabase(u.getHost(), u.getPort() < 0 ? 5432 : u.getPort(), user, password, admin,
        "ax_spring_" + HexFormat.of().formatHex(suffix));
    try (Connection c = db.connect(admin); Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + db.name);
    } catch (SQLException e) {
      throw new SQLException("cannot create a test database on " + u + " (set AX_TEST_PG_URL to a PostgreSQL admin"
          + " URL): " + e.getMessage(), e);
    }
    return db;
  }

  /** The form {@code AX_PG_URL} takes. */
  String url() {
    String info = enc(user) + (password.isEmpty() ? "" : ":" + enc(password));
    return "postgresql://" + info + "@" + host + ":" + port + "/" + name;
  }

  private Connection connect(String database) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", user);
    if (!password.isEmpty()) {
      p.setProperty("password", password);
    }
    p.setProperty("connectTimeout", "10");
    return DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/" + database, p);
  }

  private static String enc(String s) {
    return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** Drops the database, disconnecting whoever is still connected. */
  @Override
  public void close() throws SQLException {
    try (Connection c = connect(admin); Statement st = c.createStatement()) {
      st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
  }
}
