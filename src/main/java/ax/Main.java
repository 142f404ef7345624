package ax;

import ax.config.AxConfig;
import ax.config.ConfigException;
import ax.node.AxNode;
import ax.node.DevDatabase;
import ax.tools.ExecutorCommand;
import ax.tools.ExecutorTokenCommand;
import ax.tools.SignCommand;

import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar ax.jar <command>}: {@code server} (configured from the environment), {@code dev}
 * (embedded PostgreSQL, prints a key to use), {@code sign} (signs a request for curl users), {@code executor}
 * (a demo executor, see {@link ax.executor.AxExecutor}) and {@code executor-token} (mints its token).
 */
public final class Main {
  private Main() {
  }

  public static void main(String[] args) throws Exception {
    String command = args.length == 0 ? "help" : args[0];
    switch (command) {
      case "server" -> System.exit(runNode(System.getenv(), false));
      case "dev" -> System.exit(runNode(System.getenv(), true));
      case "sign" -> System.exit(SignCommand.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
      case "executor" -> System.exit(ExecutorCommand.run(java.util.Arrays.copyOfRange(args, 1, args.length),
          System.getenv()));
      case "executor-token" -> System.exit(ExecutorTokenCommand.run(
          java.util.Arrays.copyOfRange(args, 1, args.length), System.getenv()));
      default -> {
        System.out.println("""
            usage: java -jar ax.jar <command>
              server   run a scheduler node; needs AX_PG_URL (see README for every AX_* variable)
              dev      run a single node with an embedded PostgreSQL; prints an access key and secret
              sign     sign an API request: sign --key AK --secret SK --method POST --path /openapi/v1/tasks [--query Q] [--body JSON | --body-file F]
              executor run a demo executor: executor --servers 127.0.0.1:7000[,host:port…] --token TOKEN --processors echo,noop,sleep,fail
                       [--executor-id ID] [--zone Z] [--record FILE] [--pools high=8,default=16,slow=8] [--buffer N]
              executor-token  print an executor token signed with AX_EXECUTOR_JWT_SECRET: executor-token --executor-id ID [--ttl-days N]""");
        System.exit("help".equals(command) ? 0 : 2);
      }
    }
  }

  private static int runNode(Map<String, String> env, boolean dev) {
    Map<String, String> effective = new HashMap<>(env);
    DevDatabase devDb = null;
    try {
      if (dev) {
        System.out.println("ax dev: starting embedded PostgreSQL …");
        devDb = DevDatabase.start();
        effective.putIfAbsent("AX_PG_URL", devDb.url());
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
            """, node.httpPort(), config.nodeId(), key[0], key[1], String.join(",", config.callbackAllowlist()),
            key[0], key[1]);
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
        node.stop().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
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
    byte[] b = new byte[bytes];
    new SecureRandom().nextBytes(b);
    return HexFormat.of().formatHex(b);
  }
}
