package ax.tools;

import ax.executor.AxExecutor;
import ax.executor.ExecutorListener;
import ax.executor.ExecutorSummary;
import ax.executor.FileExecutionRecorder;
import ax.executor.PoolSizes;
import ax.executor.ServerAddress;
import ax.executor.TaskHandler;
import ax.protocol.Names;
import ax.protocol.TokenClaims;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code ax executor}: a demo executor running the {@link DemoProcessors}. Prints
 * {@code executor <id> registered with <server> session <s>} on every registration (tests wait for it),
 * and on SIGTERM drains, prints a summary line and exits 0.
 */
public final class ExecutorCommand {
  static final String TOKEN_ENV = "AX_EXECUTOR_TOKEN";
  private static final Set<String> OPTIONS =
      Set.of("servers", "token", "processors", "executor-id", "zone", "record", "pools", "buffer");

  private ExecutorCommand() {
  }

  public static int run(String[] args, Map<String, String> env) {
    AxExecutor executor;
    FileExecutionRecorder recorder = null;
    try {
      Map<String, String> opts = CliOptions.parse(args, OPTIONS);
      String token = opts.getOrDefault("token", env.get(TOKEN_ENV));
      if (opts.get("servers") == null || token == null || opts.get("processors") == null) {
        throw new IllegalArgumentException("--servers, --token (or " + TOKEN_ENV + ") and --processors are required");
      }
      String id = opts.containsKey("executor-id") ? opts.get("executor-id") : TokenClaims.unverifiedSubject(token);
      AxExecutor.Builder builder = AxExecutor.builder()
          .servers(opts.get("servers"))
          .token(token)
          .executorId(Names.requireExecutorId(id))
          .zone(opts.get("zone"))
          .listener(new PrintingListener(id));
      for (String name : opts.get("processors").split(",")) {
        TaskHandler handler = DemoProcessors.ALL.get(name.trim());
        if (handler == null) {
          throw new IllegalArgumentException("unknown processor '" + name.trim() + "' (known: "
              + String.join(",", new java.util.TreeSet<>(DemoProcessors.ALL.keySet())) + ")");
        }
        builder.handler(name.trim(), handler);
      }
      if (opts.containsKey("pools")) {
        builder.pools(PoolSizes.parse(opts.get("pools")));
      }
      if (opts.containsKey("buffer")) {
        builder.buffer(parseInt(opts.get("buffer"), "--buffer"));
      }
      if (opts.containsKey("record")) {
        recorder = new FileExecutionRecorder(Path.of(opts.get("record")));
        builder.recorder(recorder);
      }
      executor = builder.build();
    } catch (IllegalArgumentException | IOException e) {
      System.err.println("executor: " + e.getMessage());
      usage();
      return 2;
    }
    installDrainOnShutdown(executor, recorder);
    executor.start();
    try {
      new CountDownLatch(1).await(); // the shutdown hook ends the process
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  private static void installDrainOnShutdown(AxExecutor executor, FileExecutionRecorder recorder) {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      int status = 0;
      try {
        ExecutorSummary summary = executor.drain().get(40, TimeUnit.SECONDS);
        System.out.println(summary.line());
      } catch (Exception e) {
        System.out.println("executor " + executor.executorId() + " drain failed: " + e);
        status = 1;
      }
      try {
        if (recorder != null) {
          recorder.close();
        }
      } catch (IOException ignored) {
        // every line was flushed when written
      }
      System.out.flush();
      // halt, not exit: exit would wait for this hook (deadlock), and a SIGTERM'd JVM would report 143;
      // a completed drain is a clean exit.
      Runtime.getRuntime().halt(status);
    }, "ax-executor-drain"));
  }

  private static int parseInt(String value, String name) {
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number, got '" + value + "'");
    }
  }

  private static void usage() {
    System.err.println("usage: executor --servers host:port[,host:port…] --token TOKEN --processors echo,noop,sleep,fail"
        + " [--executor-id ID] [--zone Z] [--record FILE] [--pools high=8,default=16,slow=8] [--buffer N]");
  }

  /** The lines tests and operators read. */
  private record PrintingListener(String executorId) implements ExecutorListener {
    @Override
    public void registered(String id, ServerAddress server, String session) {
      System.out.println("executor " + id + " registered with " + server + " session " + session);
    }

    @Override
    public void disconnected(ServerAddress server, Throwable cause) {
      System.out.println("executor " + executorId + " lost connection to " + server + ": " + cause.getMessage());
    }

    @Override
    public void reconnecting(ServerAddress server, long delayMs) {
      System.out.println("executor " + executorId + " reconnecting to " + server + " in " + delayMs + " ms");
    }
  }
}
