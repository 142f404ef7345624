package ax.testing;

import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of the test's own — initdb into a temporary directory, on a free port — that the
 * test can really stop (fast shutdown or a crash) and start again, unlike the machine's server which
 * other tests share. Uses the machine's PostgreSQL binaries ({@code pg_config --bindir}, else
 * {@code /usr/lib/postgresql/<n>/bin}); when running as root, as the {@code postgres} user (PostgreSQL
 * refuses root). Without binaries the test is skipped — or fails under {@code AX_TEST_REQUIRE_SERVICES=true}.
 */
public final class PrivatePostgres implements AutoCloseable {
  private final Path bin;
  private final Path dir;
  private final int port;
  private final boolean asPostgresUser;

  private PrivatePostgres(Path bin, Path dir, int port, boolean asPostgresUser) {
    this.bin = bin;
    this.dir = dir;
    this.port = port;
    this.asPostgresUser = asPostgresUser;
  }

  /** initdb (trust auth, user {@code postgres}) and start. */
  public static PrivatePostgres start() throws Exception {
    Path bin = binaries();
    if (bin == null) {
      String why = "no PostgreSQL binaries (pg_config --bindir, /usr/lib/postgresql/*/bin)";
      if (TestPostgres.requireServices()) {
        throw new AssertionError(why);
      }
      Assumptions.abort(why);
    }
    boolean root = "root".equals(System.getProperty("user.name"));
    Path dir = Files.createTempDirectory("ax-pg-");
    PrivatePostgres pg = new PrivatePostgres(bin, dir.resolve("data"), freePort(), root);
    if (root) {
      run(List.of("chown", "postgres:postgres", dir.toString()));
    }
    pg.pg("initdb", "-D", pg.dir.toString(), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8");
    pg.startAgain();
    return pg;
  }

  /** {@code postgresql://postgres@127.0.0.1:<port>/postgres}. */
  public String url() {
    return "postgresql://postgres@127.0.0.1:" + port + "/postgres";
  }

  public int port() {
    return port;
  }

  /**
   * Starts the (stopped) server on the same data and port, waiting until it accepts connections.
   * fsync is off (a test server need not survive the machine crashing) but commits stay synchronous: a
   * commit it acknowledged survives {@link #stopImmediate()}, as on a production server.
   */
  public void startAgain() throws Exception {
    pg("pg_ctl", "-D", dir.toString(), "-w", "-t", "60", "-l", dir.resolve("server.log").toString(), "-o",
        "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off"
            + " -c max_connections=200", "start");
  }

  /** A clean stop: PostgreSQL ends every session (SQLSTATE 57P01) and exits. */
  public void stopFast() throws Exception {
    pg("pg_ctl", "-D", dir.toString(), "-w", "-m", "fast", "stop");
  }

  /** A crash: the server quits at once, connections drop without a word, recovery runs at the next start. */
  public void stopImmediate() throws Exception {
    pg("pg_ctl", "-D", dir.toString(), "-w", "-m", "immediate", "stop");
  }

  /** The server's log, for a failure message. */
  public String log() {
    try {
      return Files.readString(dir.resolve("server.log"));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() throws Exception {
    try {
      if (Files.exists(dir.resolve("postmaster.pid"))) {
        stopImmediate();
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir.getParent())) {
        files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
      }
    }
  }

  private void pg(String tool, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    if (asPostgresUser) {
      cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    cmd.add(bin.resolve(tool).toString());
    cmd.addAll(List.of(args));
    run(cmd);
  }

  private static void run(List<String> cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + " failed:\n" + out);
    }
  }

  private static Path binaries() {
    try {
      Process p = new ProcessBuilder("pg_config", "--bindir").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      if (p.waitFor() == 0 && Files.isExecutable(Path.of(out, "initdb"))) {
        return Path.of(out);
      }
    } catch (IOException | InterruptedException e) {
      // no pg_config: look where Debian puts them
    }
    try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
      return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb")))
          .max(Comparator.naturalOrder()).orElse(null);
    } catch (IOException e) {
      return null;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
