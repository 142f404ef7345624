package ax.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class TestPostgresTest {

  @Test
  void eachCallerGetsItsOwnDatabaseWhichCloseDrops() throws Exception {
    try (TestPostgres observer = TestPostgres.create()) {
      TestPostgres a = TestPostgres.create();
      TestPostgres b = TestPostgres.create();
      try {
        assertNotEquals(a.database(), b.database());
        assertTrue(a.database().matches("ax_test_[0-9a-f]{12}"), a.database());
        assertEquals(a.source(), b.source());

        for (TestPostgres pg : new TestPostgres[] {a, b}) {
          try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), props(pg));
              Statement st = c.createStatement();
              ResultSet rs = st.executeQuery("SELECT current_database()")) {
            assertTrue(rs.next());
            assertEquals(pg.database(), rs.getString(1));
          }
        }
        // a table in one database is invisible in the other
        try (Connection c = a.connect(); Statement st = c.createStatement()) {
          st.execute("CREATE TABLE only_in_a (id int)");
        }
        try (Connection c = b.connect(); Statement st = c.createStatement();
            ResultSet rs = st.executeQuery("SELECT to_regclass('only_in_a') IS NULL")) {
          assertTrue(rs.next());
          assertTrue(rs.getBoolean(1));
        }

        assertTrue(exists(observer, a.database()));
        // close() must drop the database even while someone is still connected (WITH (FORCE))
        Connection lingering = a.connect();
        a.close();
        assertTrue(!exists(observer, a.database()), "database of a still exists after close()");
        lingering.close();
        a.close(); // idempotent
      } finally {
        a.close();
        b.close();
      }
      assertTrue(!exists(observer, b.database()), "database of b still exists after close()");
    }
  }

  @Test
  void urlHasTheFormAxPgUrlTakes() {
    try (TestPostgres pg = TestPostgres.create()) {
      URI u = URI.create(pg.url());
      assertEquals("postgresql", u.getScheme());
      assertEquals(pg.host(), u.getHost());
      assertEquals(pg.port(), u.getPort());
      assertEquals("/" + pg.database(), u.getPath());
      assertTrue(u.getUserInfo().startsWith(pg.user()), u.getUserInfo());
      assertTrue(pg.jdbcUrl().startsWith("jdbc:postgresql://"), pg.jdbcUrl());
      assertTrue(pg.jdbcUrl().endsWith(":" + pg.port() + "/" + pg.database()), pg.jdbcUrl());
      assertTrue(java.util.List.of("env", "local", "testcontainers", "embedded").contains(pg.source()), pg.source());
    }
  }

  private static boolean exists(TestPostgres observer, String db) throws SQLException {
    try (Connection c = observer.connect();
        PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_database WHERE datname = ?")) {
      ps.setString(1, db);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1) == 1;
      }
    }
  }

  private static Properties props(TestPostgres pg) {
    Properties p = new Properties();
    p.setProperty("user", pg.user());
    if (!pg.password().isEmpty()) {
      p.setProperty("password", pg.password());
    }
    return p;
  }
}
