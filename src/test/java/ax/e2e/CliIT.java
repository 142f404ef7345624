package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * target/ax.jar's command line and start as an operator meets them: usage and refusals with exit code 2,
 * --help and --version, a busy port named with the variable that moves it, a bad log setting, and a
 * clustered node that starts in a handful of JSON lines with no library's banner or false alarm.
 */
class CliIT {
  private static final String SECRET = "0123456789abcdef0123456789abcdef";

  /** How one run of the jar ended. */
  private record Run(int code, String out, String err) {
    String both() {
      return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  /** Runs {@code java -jar ax.jar args…} to its end with only {@code env} of the AX_* variables. */
  private static Run run(Map<String, String> env, String... args) throws Exception {
    return run(List.of(), env, args);
  }

  private static Run run(List<String> jvmOptions, Map<String, String> env, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(AxProcess.javaBin(), "-Xmx256m"));
    cmd.addAll(jvmOptions);
    cmd.addAll(List.of("-jar", System.getProperty("ax.jar", "target/ax.jar")));
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile("ax-cli-", ".out");
    Path err = Files.createTempFile("ax-cli-", ".err");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("AX_"));
    pb.environment().putAll(env);
    Process p = pb.start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      fail("java -jar ax.jar " + String.join(" ", args) + " did not end within 120 s:\n" + Files.readString(err));
    }
    try {
      return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  @Test
  void aBareJarPrintsTheUsageOnStderrAndExits2() throws Exception {
    Run r = run(Map.of());

    assertEquals(2, r.code(), r.both());
    assertEquals("", r.out(), r.both());
    assertTrue(r.err().contains("Usage: ax [-hV] [COMMAND]"), r.both());
  }

  @Test
  void helpExits0AndVersionIsThePomsVersion() throws Exception {
    Run help = run(Map.of(), "--help");
    assertEquals(0, help.code(), help.both());
    assertTrue(help.out().startsWith("Usage: ax"), help.both());

    Run version = run(Map.of(), "executor", "--version");
    assertEquals(0, version.code(), version.both());
    assertEquals("ax " + System.getProperty("ax.version") + "\n", version.out(), version.both());
  }

  @Test
  void aMistypedFlagSignsNothingAndExits2() throws Exception {
    Run r = run(Map.of(), "sign", "--key", "ak", "--secret", "sk", "--path", "/openapi/v1/tasks", "--bdy", "{}");

    assertEquals(2, r.code(), r.both());
    assertEquals("", r.out(), r.both());
    assertTrue(r.err().startsWith("ax sign: Unknown options: '--bdy', '{}'"), r.both());
  }

  @Test
  void signAndExecutorTokenPrintOnlyWhatTheyMakeAndNothingOnStderr() throws Exception {
    Run sign = run(Map.of(), "sign", "--key", "ak", "--secret", "sk", "--path", "/openapi/v1/tasks");
    assertEquals(0, sign.code(), sign.both());
    assertEquals(4, sign.out().lines().count(), sign.both());
    assertEquals("", sign.err(), "no SLF4J or other notice: " + sign.both());

    Run token = run(Map.of("AX_EXECUTOR_JWT_SECRET", SECRET), "executor-token", "--executor-id", "ex-1");
    assertEquals(0, token.code(), token.both());
    assertTrue(token.out().matches("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\n"), token.both());
    assertEquals("", token.err(), token.both());
  }

  @Test
  void aBadLogSettingStopsTheCommandNamingTheVariable() throws Exception {
    Run r = run(Map.of("AX_LOG_LEVEL", "loud"), "sign", "--key", "ak", "--secret", "sk", "--path", "/p");

    assertEquals(2, r.code(), r.both());
    assertEquals("", r.out(), r.both());
    assertTrue(r.err().startsWith("ax: configuration error: AX_LOG_LEVEL=loud is invalid: expected one of"),
        r.both());
  }

  @Test
  void aBusyHttpPortIsNamedWithItsVariable() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); ServerSocket taken = new ServerSocket(0)) {
      Run r = run(Map.of("AX_PG_URL", pg.url(), "AX_HTTP_PORT", Integer.toString(taken.getLocalPort())), "server");

      assertNotEquals(0, r.code(), r.both());
      assertTrue(r.err().contains("ax: failed to start: port " + taken.getLocalPort()
          + " is already in use (set AX_HTTP_PORT to a free port)"), r.both());
    }
  }

  @Test
  void aBusyBridgePortIsNamedWithItsVariable() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); ServerSocket taken = new ServerSocket(0)) {
      Run r = run(Map.of("AX_PG_URL", pg.url(), "AX_HTTP_PORT", Integer.toString(AxProcess.freePort()),
          "AX_EXECUTOR_JWT_SECRET", SECRET, "AX_BRIDGE_PORT", Integer.toString(taken.getLocalPort())), "server");

      assertNotEquals(0, r.code(), r.both());
      assertTrue(r.err().contains("ax: failed to start: port " + taken.getLocalPort()
          + " is already in use (set AX_BRIDGE_PORT to a free port)"), r.both());
    }
  }

  /**
   * Everything a clustered node with the bridge prints up to "ready": JSON records at INFO saying the
   * schema, the cluster, the bridge, the role and the port, and the stdout line; no banner, no notice.
   */
  @Test
  void aClusteredNodeStartsInAHandfulOfJsonLines() throws Exception {
    int clusterPort = AxProcess.freePort();
    Map<String, String> env = new HashMap<>(Map.of("AX_LOG_FORMAT", "json", "AX_EXECUTOR_JWT_SECRET", SECRET,
        "AX_BRIDGE_PORT", Integer.toString(AxProcess.freePort()),
        "AX_CLUSTER_MEMBERS", "127.0.0.1:" + clusterPort, "AX_CLUSTER_PORT", Integer.toString(clusterPort)));
    try (TestPostgres pg = TestPostgres.create()) {
      env.put("AX_PG_URL", pg.url());
      try (AxProcess ax = AxProcess.start("server", env)) {
        List<String> lines = awaitLine(ax, "ax server is up on port " + ax.port + " ");
        List<String> messages = new ArrayList<>();
        for (String line : lines) {
          if (line.startsWith("ax server is up on port ")) {
            continue;
          }
          JsonObject record = new JsonObject(line);
          assertEquals("INFO", record.getString("level"), line);
          assertTrue(record.containsKey("time") && record.containsKey("logger") && record.containsKey("thread"), line);
          messages.add(record.getString("message"));
        }
        String all = String.join("\n", lines);
        List<String> said = new ArrayList<>(List.of("schema at version", "joined cluster 'ax' as 127.0.0.1:"
            + clusterPort, "executor bridge on", "became leader, epoch 1", "serving on port " + ax.port));
        if (System.getProperty("os.name").startsWith("Linux")) {
          said.add("network transport: native epoll"); // the jar carries Netty's epoll for x86_64 and aarch64
        }
        for (String expected : said) {
          assertTrue(messages.stream().anyMatch(m -> m.contains(expected)), expected + " is said:\n" + all);
        }
        assertTrue(lines.size() <= 9, "a handful of lines, not " + lines.size() + ":\n" + all);
        for (String noise : List.of("SLF4J", "o----o", "UNSAFE", "already registered", "modular", "Flyway")) {
          assertFalse(all.contains(noise), noise + ":\n" + all);
        }
      }
    }
  }

  @Test
  void theJarCarriesThePostgresOfEveryPlatformDevRunsOn() throws Exception {
    try (java.util.zip.ZipFile jar = new java.util.zip.ZipFile(System.getProperty("ax.jar", "target/ax.jar"))) {
      for (String bundle : ax.node.PgBundles.shipped()) {
        assertTrue(jar.getEntry(bundle) != null && jar.getEntry(bundle).getSize() > 10_000_000,
            bundle + " is in the jar");
      }
    }
  }

  @Test
  void devStartsItsEmbeddedPostgresFromTheJar() throws Exception {
    try (AxProcess ax = AxProcess.start("dev", Map.of())) {
      List<String> lines = awaitLine(ax, "  admin token (1 h");
      assertEquals("ax dev: starting embedded PostgreSQL …", lines.get(0), ax.output());
      assertTrue(lines.contains("  console    : http://127.0.0.1:" + ax.port + "/console/"), ax.output());
      // the embedded database's own master key and admin secret: the printed token opens /admin/v1
      String token = lines.stream().filter(l -> l.startsWith("  admin token")).findFirst().orElseThrow()
          .replaceFirst(".*: ", "").trim();
      java.net.http.HttpResponse<String> keys = java.net.http.HttpClient.newHttpClient().send(
          java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + ax.port + "/admin/v1/keys"))
              .header("Authorization", "Bearer " + token).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
      assertEquals(200, keys.statusCode(), keys.body());
      assertTrue(keys.body().contains("\"tenant_id\":\"dev\""), "the dev key is listed: " + keys.body());
    }
  }

  /** A platform without binaries, played by overriding os.arch: the message says what to do instead. */
  @Test
  void devOnAPlatformWithoutBinariesSaysToUseAxPgUrl() throws Exception {
    Run r = run(List.of("-Dos.arch=ppc64le"), Map.of(), "dev");

    assertEquals(1, r.code(), r.both());
    assertTrue(r.err().contains("ax: this jar has no embedded PostgreSQL for " + System.getProperty("os.name")
        + " ppc64le"), r.both());
    assertTrue(r.err().contains("set AX_PG_URL=") && r.err().contains("java -jar ax.jar server"), r.both());
  }

  @Test
  void devUsesThePostgresOfAxPgUrlWhenOneIsGiven() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); AxProcess ax = AxProcess.start("dev", Map.of("AX_PG_URL", pg.url()))) {
      List<String> lines = awaitLine(ax, "ax dev is up on http://127.0.0.1:" + ax.port + " ");
      assertEquals("ax dev: using the PostgreSQL at AX_PG_URL", lines.get(0), ax.output());
      assertTrue(ax.output().contains(pg.url().substring(pg.url().indexOf('@') + 1) + ": schema at version"),
          ax.output());
    }
  }

  /** The node's output lines once one starts with {@code prefix} (printed just after /health answers). */
  private static List<String> awaitLine(AxProcess ax, String prefix) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (System.nanoTime() < deadline) {
      List<String> lines = ax.output().lines().toList();
      if (lines.stream().anyMatch(l -> l.startsWith(prefix))) {
        return lines;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("'" + prefix + "…' not printed:\n" + ax.output());
  }
}
