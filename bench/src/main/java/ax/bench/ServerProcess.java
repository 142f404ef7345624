package ax.bench;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One ax node as a separate OS process: {@code java -Xmx<heap> [--ax-jvm-flags] -jar ax.jar server} (the
 * README's launch), configured only through the environment as a user would, output into
 * {@code results/<scenario>-server.log}.
 */
public final class ServerProcess implements AutoCloseable {
  private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)\\})?\\s+(\\S+)");

  private final Process process;
  private final int httpPort;
  private final Path log;
  private final Map<String, String> axEnv;
  private final String launch;
  private final String javaExe;
  private final Path jar;
  private long shutdownOffset = -1; // log size when SIGTERM was sent
  private boolean killed;
  private long stopMs = -1;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private ServerProcess(Process process, int httpPort, Path log, Map<String, String> axEnv, String launch,
                        String java, Path jar) {
    this.javaExe = java;
    this.jar = jar;
    this.process = process;
    this.httpPort = httpPort;
    this.log = log;
    this.axEnv = axEnv;
    this.launch = launch;
  }

  /**
   * {@code --ax-jvm-flags "…"} split at spaces: JVM flags on the node's command line (e.g.
   * {@code -XX:TieredStopAtLevel=1}, README "JVM flags"). None by default: ax as the README starts it.
   * Unlike {@code --env JAVA_TOOL_OPTIONS=…} they reach only ax's nodes and show in the report's launch row.
   */
  public static List<String> jvmFlags(Options o) {
    String flags = o.string("ax-jvm-flags", "").trim();
    return flags.isEmpty() ? List.of() : List.of(flags.split("\\s+"));
  }

  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    }
  }

  /**
   * Starts the node. Inherited AX_* variables are dropped so that a run depends only on its flags;
   * {@code extraEnv} (from --env) is applied last and wins.
   */
  public static ServerProcess start(Path jar, String heap, List<String> jvmFlags, String pgUrl, String bootstrapKey,
                                    Map<String, String> extraEnv, Path log) throws IOException {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("scheduler jar not found: " + jar
          + " (build it with `mvn -B -q -f pom.xml package -DskipTests` at the project root, or pass --jar)");
    }
    int port = freePort();
    Map<String, String> ax = new LinkedHashMap<>();
    ax.put("AX_PG_URL", pgUrl);
    ax.put("AX_HTTP_PORT", Integer.toString(port));
    ax.put("AX_BRIDGE_PORT", Integer.toString(freePort())); // default 7000 may be taken by another run
    ax.put("AX_BOOTSTRAP_KEY", bootstrapKey);
    ax.put("AX_CALLBACK_ALLOWLIST", "127.0.0.1");
    ax.put("AX_RATE_LIMIT", "100000");
    ax.putAll(extraEnv);

    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(commandLine(java, heap, jvmFlags, jar.toString()));
    pb.environment().keySet().removeIf(k -> k.startsWith("AX_"));
    pb.environment().putAll(ax);
    Files.createDirectories(log.getParent());
    Files.deleteIfExists(log);
    pb.redirectErrorStream(true);
    pb.redirectOutput(log.toFile());
    Process p = pb.start();
    String launch = String.join(" ", commandLine("java", heap, jvmFlags, jar.getFileName().toString()));
    return new ServerProcess(p, port, log, ax, launch, java, jar);
  }

  /** {@code java -Xmx<heap> <flags> -jar <jar> server}: what is run, and (short names) what reports show. */
  private static List<String> commandLine(String java, String heap, List<String> jvmFlags, String jar) {
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx" + heap));
    cmd.addAll(jvmFlags);
    cmd.addAll(List.of("-jar", jar, "server"));
    return cmd;
  }

  public int httpPort() {
    return httpPort;
  }

  public long pid() {
    return process.pid();
  }

  public Path log() {
    return log;
  }

  /** The command line that started the node, the jar by its file name (for reports). */
  public String launch() {
    return launch;
  }

  /** The AX_* environment the node got, with the secret masked (for the report). */
  public Map<String, String> describedEnv() {
    Map<String, String> m = new LinkedHashMap<>(axEnv);
    m.computeIfPresent("AX_BOOTSTRAP_KEY", (k, v) -> v.replaceAll(":[^:]+:", ":***:"));
    return m;
  }

  /**
   * The named settings as this node resolved them, from the jar's own {@code ax config} run in the node's
   * environment (so a report never shows a default the jar does not have), e.g. {@code "AX_TICK_MS 20"};
   * a jar without that command is said to be so.
   */
  public String settingsInEffect(List<String> names) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(javaExe, "-jar", jar.toString(), "config").redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("AX_"));
    pb.environment().putAll(axEnv);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      return "unknown (`ax config` of this jar: " + out.lines().findFirst().orElse("no output") + ")";
    }
    Map<String, String> values = new LinkedHashMap<>();
    out.lines().map(line -> line.split("=", 2)).filter(kv -> kv.length == 2)
        .forEach(kv -> values.put(kv[0], kv[1].replaceAll("\\s+#.*", "")));
    List<String> shown = new ArrayList<>();
    for (String name : names) {
      shown.add(name + " " + values.getOrDefault(name, "?"));
    }
    return String.join(", ", shown);
  }

  /** Polls GET /health until 200; fails early with the log tail if the process exits. Returns ms taken. */
  public long awaitHealthy(long timeoutMs) throws Exception {
    long start = System.currentTimeMillis();
    long deadline = start + timeoutMs;
    String last = "no answer";
    while (System.currentTimeMillis() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("scheduler exited with code " + process.exitValue()
            + " before becoming healthy; last lines of " + log + ":\n" + tail(40));
      }
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base() + "/health"))
            .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return System.currentTimeMillis() - start;
        }
        last = r.statusCode() + " " + r.body();
      } catch (IOException e) {
        last = e.toString();
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("scheduler not healthy after " + timeoutMs + " ms (last: " + last
        + "); last lines of " + log + ":\n" + tail(40));
  }

  public String base() {
    return "http://127.0.0.1:" + httpPort;
  }

  public String get(String path) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base() + path))
        .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("GET " + path + " -> " + r.statusCode() + ": " + r.body());
    }
    return r.body();
  }

  /** Sum of every sample of {@code metric} whose labels contain all of {@code labelFilter}; NaN if absent. */
  public static double metric(String text, String metric, String... labelFilter) {
    double sum = 0;
    boolean found = false;
    for (String line : text.split("\n")) {
      if (line.startsWith("#")) {
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      if (!m.find() || !m.group(1).equals(metric)) {
        continue;
      }
      String labels = m.group(3) == null ? "" : m.group(3);
      boolean ok = true;
      for (String f : labelFilter) {
        ok &= labels.contains(f);
      }
      if (ok) {
        try {
          sum += Double.parseDouble(m.group(4));
          found = true;
        } catch (NumberFormatException ignored) {
          // NaN / +Inf samples are skipped
        }
      }
    }
    return found ? sum : Double.NaN;
  }

  /** User+system CPU seconds of the node so far (from /proc; NaN where unavailable). */
  public double cpuSeconds() {
    return cpuSeconds(pid());
  }

  /** User+system CPU seconds of any process so far (from /proc; NaN where unavailable). */
  public static double cpuSeconds(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // after "pid (comm) ": state is f[0]; utime is field 14 overall -> f[11], stime -> f[12]
      long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
      return ticks / 100.0; // USER_HZ is 100 on Linux
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /** A field of /proc/<pid>/status in MB (VmRSS, VmHWM), NaN where unavailable. */
  public double procStatusMb(String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
        if (line.startsWith(field + ":")) {
          String kb = line.substring(field.length() + 1).trim().split("\\s+")[0];
          return Long.parseLong(kb) / 1024.0;
        }
      }
    } catch (IOException | RuntimeException e) {
      // fall through
    }
    return Double.NaN;
  }

  /** Runs {@code jcmd <pid> GC.run}; false if jcmd is not available or failed. */
  public boolean forceGc() {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    String exe = Files.isExecutable(jcmd) ? jcmd.toString() : "jcmd";
    try {
      Process p = new ProcessBuilder(exe, Long.toString(pid()), "GC.run").redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  /** After {@link #close()}: how the process ended, for the report. */
  public String stopDescription() {
    if (stopMs < 0) {
      return process.isAlive() ? "still running" : "had exited by itself (code " + process.exitValue() + ")";
    }
    return killed ? "did NOT exit within 10 s of SIGTERM; killed (SIGKILL)"
        : "exited " + stopMs + " ms after SIGTERM (code " + process.exitValue() + ")";
  }

  public boolean killedForcibly() {
    return killed;
  }

  public boolean alive() {
    return process.isAlive();
  }

  /** kill -9, as a crash would: no drain, no resignation. Waits until the process is gone. */
  public void kill() throws InterruptedException {
    process.destroyForcibly(); // SIGKILL on Linux
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("scheduler pid " + pid() + " still alive 10 s after SIGKILL");
    }
  }

  /** What {@code GET /health} says this node is: "leader" or "standby" (null when it does not answer). */
  public String role() {
    try {
      return new io.vertx.core.json.JsonObject(get("/health")).getString("role");
    } catch (Exception e) {
      return null;
    }
  }

  /** Lines of the server log that look like trouble (WARNING/SEVERE/ERROR/Exception), at most {@code max}. */
  public List<String> troubleLines(int max) {
    List<String> out = new ArrayList<>();
    try {
      byte[] all = Files.readAllBytes(log);
      int cut = shutdownOffset < 0 ? all.length : (int) Math.min(all.length, shutdownOffset);
      List<String> lines = new ArrayList<>(List.of(new String(all, 0, cut, StandardCharsets.UTF_8).split("\n")));
      if (cut < all.length) {
        lines.add("---- after SIGTERM (shutdown) ----");
        lines.addAll(List.of(new String(all, cut, all.length - cut, StandardCharsets.UTF_8).split("\n")));
      }
      for (int i = 0; i < lines.size() && out.size() < max; i++) {
        String l = lines.get(i);
        if (l.startsWith("---- after SIGTERM")) {
          out.add(l);
          continue;
        }
        if (l.contains("SEVERE") || l.contains("WARNING") || l.contains("ERROR") || l.contains("Exception")) {
          // java.util.logging prints the source line first and the level on the next one: keep both
          if (i > 0 && !lines.get(i - 1).contains("SEVERE") && !out.contains(lines.get(i - 1))
              && (l.startsWith("SEVERE") || l.startsWith("WARNING"))) {
            out.add(lines.get(i - 1));
          }
          out.add(l);
        }
      }
    } catch (IOException e) {
      out.add("(could not read " + log + ": " + e.getMessage() + ")");
    }
    return out;
  }

  public String tail(int lines) {
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
      long len = f.length();
      long from = Math.max(0, len - 16_384);
      f.seek(from);
      byte[] b = new byte[(int) (len - from)];
      f.readFully(b);
      String[] all = new String(b, StandardCharsets.UTF_8).split("\n");
      int start = Math.max(0, all.length - lines);
      return String.join("\n", java.util.Arrays.copyOfRange(all, start, all.length));
    } catch (IOException e) {
      return "(could not read " + log + ": " + e.getMessage() + ")";
    }
  }

  /** destroy(), then destroyForcibly() after 10 s. */
  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    try {
      shutdownOffset = Files.size(log);
    } catch (IOException e) {
      shutdownOffset = -1;
    }
    long t = System.currentTimeMillis();
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        System.err.println("scheduler did not stop within 10 s of SIGTERM; killing it");
        killed = true;
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
      stopMs = System.currentTimeMillis() - t;
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
