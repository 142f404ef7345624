package ax.node;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;

/**
 * The embedded PostgreSQL of {@code ax dev}: a real PostgreSQL 15 started from the binaries in the jar
 * (as root it runs inside a user namespace via {@code unshare -U}). Its data lives in a temporary
 * directory removed on exit: dev mode is for trying ax, not for keeping tasks.
 */
public final class DevDatabase implements AutoCloseable {
  private final EmbeddedPostgres pg;

  private DevDatabase(EmbeddedPostgres pg) {
    this.pg = pg;
  }

  public static DevDatabase start() throws IOException {
    return new DevDatabase(EmbeddedPostgres.builder().setCleanDataDirectory(true).start());
  }

  public String url() {
    return "postgresql://postgres@127.0.0.1:" + pg.getPort() + "/postgres";
  }

  @Override
  public void close() throws IOException {
    pg.close();
  }
}
