package ax.tools;

import ax.admin.AdminTokens;
import ax.config.AxConfig;
import ax.config.ConfigException;
import ax.node.AxNode;
import ax.node.DevDatabase;

import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs one node until the process is told to stop: reads the settings, starts the node (and for
 * {@code dev} the embedded PostgreSQL, unless AX_PG_URL names one), prints where it serves, and on
 * SIGTERM stops it gracefully.
 * Returns the exit code: 2 for a bad setting, 1 when the node cannot start.
 */
final class NodeLauncher {
  private NodeLauncher() {
  }

  static int run(Map<String, String> env, boolean dev) {
    Map<String, String> effective = new HashMap<>(env);
    DevDatabase devDb = null;
    try {
      if (dev) {
        if (blank(env.get("AX_PG_URL"))) {
          System.out.println("ax dev: starting embedded PostgreSQL …");
          devDb = DevDatabase.start();
          effective.put("AX_PG_URL", devDb.url());
          // a throwaway database: a master key of its own cannot strand sealed secrets, so the admin API
          // and the console's Administration page work out of the box (a kept database needs a kept key)
          effective.putIfAbsent("AX_MASTER_KEY", java.util.Base64.getEncoder().encodeToString(randomBytes(32)));
          effective.putIfAbsent(AdminTokens.SECRET_VARIABLE, hex(32));
        } else {
          // the way to run dev where the jar has no PostgreSQL binaries (and to keep the data)
          System.out.println("ax dev: using the PostgreSQL at AX_PG_URL");
        }
        effective.putIfAbsent("AX_BOOTSTRAP_KEY", "dev-" + hex(4) + ":" + hex(16) + ":dev");
      }
      AxConfig config = AxConfig.fromEnv(effective, dev);
      AxNode node = new AxNode(config);
      try {
        node.start().toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
      } catch (Exception e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        System.err.println("ax: failed to start: " + describe(cause, config));
        node.stop().eventually(node::close);
        return 1;
      }
      if (dev) {
        String[] key = config.bootstrapKey().split(":", 3);
        System.out.printf("""
            ax dev is up on http://127.0.0.1:%d  (node %s)
              access key : %s
              secret     : %s
              callbacks allowed to: %s
            Sign requests with: java -jar target/ax.jar sign --key %s --secret %s --method POST --path /openapi/v1/tasks --body '{…}'
              console    : http://127.0.0.1:%d/console/
            """, node.httpPort(), config.nodeId(), key[0], key[1], String.join(",", config.callbackAllowlist()),
            key[0], key[1], node.httpPort());
        if (config.admin().apiEnabled()) {
          io.vertx.core.Vertx minting = io.vertx.core.Vertx.vertx();
          try {
            System.out.println("  admin token (1 h, for /admin/v1 and the console): "
                + AdminTokens.KIND.mint(minting, config.admin().jwtSecret(), "dev", AdminTokens.DEFAULT_TTL_SECONDS));
          } finally {
            minting.close();
          }
        }
      } else {
        System.out.println("ax server is up on port " + node.httpPort() + " (node " + config.nodeId() + ")");
      }
      awaitShutdown(node, devDb);
      return 0;
    } catch (ConfigException e) {
      System.err.println("ax: configuration error: " + e.getMessage());
      return 2;
    } catch (Exception e) {
      System.err.println("ax: " + e.getMessage());
      return 1;
    } finally {
      closeQuietly(devDb);
    }
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  private static String describe(Throwable cause, AxConfig config) {
    String msg = String.valueOf(cause.getMessage());
    if (cause instanceof org.flywaydb.core.api.FlywayException || msg.contains("Connection refused")
        || msg.contains("does not exist")) {
      return "cannot use the PostgreSQL at AX_PG_URL=" + redact(config.pgUrl()) + ": " + msg;
    }
    return msg;
  }

  private static String redact(String url) {
    return url == null ? "(unset)" : url.replaceAll("://([^:@/]+):[^@/]*@", "://$1:***@");
  }

  private static void awaitShutdown(AxNode node, DevDatabase devDb) throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        node.stop().toCompletionStage().toCompletableFuture().get(node.stopTimeoutMs(), TimeUnit.MILLISECONDS);
      } catch (Exception ignored) {
        // best effort on the way out; the lease expires by itself
      }
      try {
        node.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
      } catch (Exception ignored) {
        // the process is exiting anyway
      }
      closeQuietly(devDb);
      stopped.countDown();
    }, "ax-shutdown"));
    stopped.await();
  }

  private static void closeQuietly(DevDatabase db) {
    if (db != null) {
      try {
        db.close();
      } catch (Exception ignored) {
        // already gone
      }
    }
  }

  private static String hex(int bytes) {
    return HexFormat.of().formatHex(randomBytes(bytes));
  }

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    new SecureRandom().nextBytes(b);
    return b;
  }
}
