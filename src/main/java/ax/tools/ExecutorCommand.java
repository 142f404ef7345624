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
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code ax executor}: a demo executor running the {@link DemoProcessors}. Prints
 * {@code executor <id> registered with <server> session <s>} on every registration (tests wait for it),
 * and on SIGTERM drains, prints a summary line and exits 0.
 */
@Command(name = "executor", mixinStandardHelpOptions = true, versionProvider = AxVersion.class,
    description = "Runs a demo executor (processors echo, noop, sleep, fail) connected to the bridge of one or more nodes.")
public final class ExecutorCommand implements Callable<Integer> {
  static final String TOKEN_ENV = "AX_EXECUTOR_TOKEN";

  @Option(names = "--servers", required = true, paramLabel = "HOST:PORT[,HOST:PORT…]",
      description = "bridge ports of any nodes")
  String servers;

  @Option(names = "--token", paramLabel = "TOKEN", description = "from executor-token (default: $" + TOKEN_ENV + ")")
  String token;

  @Option(names = "--processors", required = true, paramLabel = "NAME[,NAME…]",
      description = "which demo processors to serve: echo, noop, sleep, fail")
  String processors;

  @Option(names = "--executor-id", paramLabel = "ID", description = "default: the token's subject")
  String executorId;

  @Option(names = "--zone", paramLabel = "ZONE", description = "the zone this executor registers in")
  String zone;

  @Option(names = "--record", paramLabel = "FILE", description = "append every execution started to FILE")
  Path record;

  @Option(names = "--pools", paramLabel = "high=8,default=16,slow=8", description = "worker threads per pool")
  String pools;

  @Option(names = "--buffer", paramLabel = "N", description = "tasks held beyond the worker threads")
  Integer buffer;

  @Spec
  CommandSpec spec;

  private final Map<String, String> env;

  ExecutorCommand(Map<String, String> env) {
    this.env = env;
  }

  @Override
  public Integer call() {
    FileExecutionRecorder recorder = null;
    AxExecutor executor;
    try {
      AxExecutor.Builder builder = builder();
      if (record != null) {
        recorder = recorder(record);
        builder.recorder(recorder);
      }
      executor = builder.build();
    } catch (IllegalArgumentException e) {
      close(recorder);
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
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

  /** Everything but the record file, checked: a refusal leaves nothing behind. */
  private AxExecutor.Builder builder() {
    String t = token != null ? token : env.get(TOKEN_ENV);
    if (t == null) {
      throw new IllegalArgumentException("Missing required option: '--token=TOKEN' (or set " + TOKEN_ENV + ")");
    }
    String id = executorId != null ? executorId : TokenClaims.unverifiedSubject(t);
    AxExecutor.Builder builder = AxExecutor.builder()
        .servers(servers)
        .token(t)
        .executorId(Names.requireExecutorId(id))
        .zone(zone)
        .listener(new PrintingListener(id));
    for (String name : processors.split(",")) {
      TaskHandler handler = DemoProcessors.ALL.get(name.trim());
      if (handler == null) {
        throw new IllegalArgumentException("unknown processor '" + name.trim() + "' (known: "
            + String.join(",", new TreeSet<>(DemoProcessors.ALL.keySet())) + ")");
      }
      builder.handler(name.trim(), handler);
    }
    if (pools != null) {
      builder.pools(PoolSizes.parse(pools));
    }
    if (buffer != null) {
      builder.buffer(buffer);
    }
    return builder;
  }

  private FileExecutionRecorder recorder(Path file) {
    try {
      return new FileExecutionRecorder(file);
    } catch (IOException e) {
      throw new ParameterException(spec.commandLine(), "cannot open --record " + file + ": " + e);
    }
  }

  private static void close(FileExecutionRecorder recorder) {
    try {
      if (recorder != null) {
        recorder.close();
      }
    } catch (IOException ignored) {
      // nothing was recorded yet
    }
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
