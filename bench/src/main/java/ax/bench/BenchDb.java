package ax.bench;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;

/** A throw-away database {@code ax_bench_<random>} on the local PostgreSQL, dropped at the end. */
public final class BenchDb implements AutoCloseable {
  private final String host;
  private final int port;
  private final String user;
  private final String password;
  private final String name;
  private boolean keep;

  /** {@code server} = postgresql://user[:pw]@host:port (any database part is ignored). */
  public BenchDb(String server) throws SQLException {
    URI u = URI.create(server);
    String ui = u.getUserInfo() == null ? "postgres" : u.getUserInfo();
    int colon = ui.indexOf(':');
    this.user = colon < 0 ? ui : ui.substring(0, colon);
    this.password = colon < 0 ? null : ui.substring(colon + 1);
    this.host = u.getHost() == null ? "127.0.0.1" : u.getHost();
    this.port = u.getPort() < 0 ? 5432 : u.getPort();
    StringBuilder sb = new StringBuilder("ax_bench_");
    String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
    for (int i = 0; i < 10; i++) {
      sb.append(alphabet.charAt(ThreadLocalRandom.current().nextInt(alphabet.length())));
    }
    this.name = sb.toString().toLowerCase(Locale.ROOT);
    try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
  }

  public String name() {
    return name;
  }

  /** The URL the scheduler is given in AX_PG_URL. */
  public String axUrl() {
    return "postgresql://" + user + (password == null ? "" : ":" + password) + "@" + host + ":" + port + "/" + name;
  }

  /** The JDBC URL of this database, credentials included (for the peer JVMs). */
  public String jdbcUrl() {
    return "jdbc:postgresql://" + host + ":" + port + "/" + name + "?user=" + user
        + (password == null ? "" : "&password=" + password);
  }

  /** Connection parameters for command-line tools (pgbench). */
  public List<String> cliArgs() {
    return List.of("-h", host, "-p", Integer.toString(port), "-U", user);
  }

  public Connection connect() throws SQLException {
    return connect(name);
  }

  private Connection connect(String db) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", user);
    if (password != null) {
      p.setProperty("password", password);
    }
    return DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/" + db, p);
  }

  public void keep(boolean keep) {
    this.keep = keep;
  }

  @Override
  public void close() {
    if (keep) {
      System.out.println("keeping database " + name + " (--keep-db)");
      return;
    }
    try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    } catch (SQLException e) {
      System.err.println("could not drop database " + name + ": " + e.getMessage());
    }
  }
}
