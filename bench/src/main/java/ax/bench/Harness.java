package ax.bench;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What every scenario needs, set up in order and torn down in reverse (also on Ctrl-C): a Vert.x
 * instance, the callback receiver, a fresh database, the scheduler process, and the signed client.
 */
public final class Harness implements AutoCloseable {
  public static final String ACCESS_KEY = "benchkey";

  public final Options options;
  public final Report report;
  public final Vertx vertx;
  public final Signer signer;
  public final Receiver receiver;
  public final int receiverPort;
  public final String callbackUrl;
  /** Where {@code --notify} points every task's {@code notify_url}; null without it. */
  public final String notifyUrl;
  public final BenchDb db;
  public final ServerProcess server;
  public final Api api;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread hook;
  /** How {@link #server} was started, for {@link #startNode}. */
  private final NodeRecipe recipe;

  private record NodeRecipe(Path jar, String heap, List<String> jvmFlags, String bootstrapKey, Path logDir) {
  }

  private Harness(Options options, Report report, Vertx vertx, Signer signer, Receiver receiver,
                  int receiverPort, BenchDb db, ServerProcess server, Api api, Thread hook, NodeRecipe recipe) {
    this.options = options;
    this.report = report;
    this.vertx = vertx;
    this.signer = signer;
    this.receiver = receiver;
    this.receiverPort = receiverPort;
    this.callbackUrl = "http://127.0.0.1:" + receiverPort + "/hook";
    this.notifyUrl = options.flag("notify") ? receiver.notifyUrl() : null;
    this.db = db;
    this.server = server;
    this.api = api;
    this.hook = hook;
    this.recipe = recipe;
  }

  public static Harness start(String scenario, Options o, Report report, Path benchDir, String defaultHeap)
      throws Exception {
    String secret = randomSecret(32);
    Signer signer = new Signer(ACCESS_KEY, secret);
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
    Receiver receiver = null;
    BenchDb db = null;
    ServerProcess server = null;
    try {
      receiver = new Receiver(vertx, signer);
      int receiverPort = receiver.start();
      db = new BenchDb(o.string("pg", "postgresql://postgres@127.0.0.1:5432"));
      db.keep(o.flag("keep-db"));
      Path jar = jar(o, benchDir);
      String heap = o.string("heap", defaultHeap);
      Path log = Path.of(o.string("results", benchDir.resolve("results").toString()))
          .resolve(scenario + "-server.log");
      report.setup("scheduler jar", jar + describeJar(jar));
      List<String> jvmFlags = ServerProcess.jvmFlags(o);
      report.setup("scheduler heap", "-Xmx" + heap);
      report.setup("database", db.name());
      server = ServerProcess.start(jar, heap, jvmFlags, db.axUrl(), ACCESS_KEY + ":" + secret + ":bench", o.env(), log);
      report.setup("scheduler launch", server.launch());
      report.setup("scheduler env", server.describedEnv().toString());
      report.setup("server log", log.toString());
      System.out.println("started scheduler pid " + server.pid() + " on port " + server.httpPort()
          + " (db " + db.name() + ", log " + log + "); waiting for /health …");
      long healthyMs = server.awaitHealthy(o.longValue("health-timeout-s", 60) * 1000);
      report.setup("time to healthy", healthyMs + " ms");
      Api api = new Api(vertx, server.httpPort(), signer, o.intValue("pool", 32));
      BenchDb fdb = db;
      ServerProcess fserver = server;
      Receiver freceiver = receiver;
      Harness[] self = new Harness[1];
      Thread hook = new Thread(() -> {
        if (self[0] != null) {
          self[0].teardown();
        }
      }, "ax-bench-cleanup");
      Harness h = new Harness(o, report, vertx, signer, freceiver, receiverPort, fdb, fserver, api, hook,
          new NodeRecipe(jar, heap, jvmFlags, ACCESS_KEY + ":" + secret + ":bench", log.getParent()));
      self[0] = h;
      Runtime.getRuntime().addShutdownHook(hook);
      return h;
    } catch (Exception | Error e) {
      if (server != null) {
        report.serverTrouble(server.troubleLines(20));
        server.close();
      }
      if (db != null) {
        db.close();
      }
      if (receiver != null) {
        receiver.close();
      }
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      throw e;
    }
  }

  /** The scheduler jar under test: {@code --jar}, or the one the root build made. */
  public static Path jar(Options o, Path benchDir) {
    return o.has("jar") ? Path.of(o.string("jar", null)).toAbsolutePath()
        : benchDir.resolve("../target/ax.jar").normalize();
  }

  private static String describeJar(Path jar) {
    try {
      return " (" + Files.size(jar) / (1024 * 1024) + " MB, built " + Files.getLastModifiedTime(jar) + ")";
    } catch (Exception e) {
      return " (missing)";
    }
  }

  private static String randomSecret(int n) {
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    SecureRandom r = new SecureRandom();
    StringBuilder sb = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
    }
    return sb.toString();
  }

  /**
   * Another node of the same installation (same jar, heap, JVM flags, database and bootstrap key), its AX_* from
   * {@code --env} then {@code env}; the caller stops it. Its output goes to {@code <results>/<logName>}.
   */
  public ServerProcess startNode(java.util.Map<String, String> env, String logName) throws java.io.IOException {
    java.util.Map<String, String> all = new java.util.LinkedHashMap<>(options.env());
    all.putAll(env);
    return ServerProcess.start(recipe.jar(), recipe.heap(), recipe.jvmFlags(), db.axUrl(), recipe.bootstrapKey(), all,
        recipe.logDir().resolve(logName));
  }

  /** Fails the report if the scheduler process is gone. */
  public boolean checkServerAlive() {
    if (!server.alive()) {
      report.fail("scheduler process exited during the run; last lines of its log:\n" + server.tail(20));
      return false;
    }
    return true;
  }

  private void teardown() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      api.close();
    } catch (RuntimeException ignored) {
      // closing anyway
    }
    server.close();
    report.section("");
    report.setup("scheduler shutdown", server.stopDescription());
    if (server.killedForcibly()) {
      report.note("the scheduler did not exit within 10 s of SIGTERM and was killed");
    }
    report.serverTrouble(server.troubleLines(20));
    db.close();
    try {
      receiver.close();
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception ignored) {
      // best effort
    }
  }

  @Override
  public void close() {
    teardown();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException ignored) {
      // already shutting down
    }
  }
}
