package ax.node;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.InputStream;

/**
 * The embedded PostgreSQL of {@code ax dev}: a real PostgreSQL 15 started from the binaries in the jar
 * (as root it runs inside a user namespace via {@code unshare -U}). Its data lives in a temporary
 * directory removed on exit: dev mode is for trying ax, not for keeping tasks. Which binaries: see
 * {@link PgBundles}; on a platform the jar has none for, {@link #start()} fails saying what to do instead.
 */
public final class DevDatabase implements AutoCloseable {
  private final EmbeddedPostgres pg;

  private DevDatabase(EmbeddedPostgres pg) {
    this.pg = pg;
  }

  public static DevDatabase start() throws IOException {
    String os = System.getProperty("os.name");
    String arch = System.getProperty("os.arch");
    String bundle = PgBundles.forPlatform(os, arch).orElseThrow(() -> new IOException(
        "this jar has no embedded PostgreSQL for " + os + " " + arch + " (it has " + PgBundles.SUPPORTED
            + "). Run a PostgreSQL 15 of your own and set AX_PG_URL=postgresql://user@host:port/db: "
            + "`dev` then uses it, and so does `java -jar ax.jar server`"));
    return new DevDatabase(EmbeddedPostgres.builder()
        .setPgBinaryResolver((system, machine) -> open(bundle))
        .setCleanDataDirectory(true)
        .start());
  }

  private static InputStream open(String bundle) throws IOException {
    InputStream in = DevDatabase.class.getResourceAsStream("/" + bundle);
    if (in == null) {
      throw new IOException(bundle + " is missing from the classpath (the jar is built with it)");
    }
    return in;
  }

  public String url() {
    return "postgresql://postgres@127.0.0.1:" + pg.getPort() + "/postgres";
  }

  @Override
  public void close() throws IOException {
    pg.close();
  }
}
