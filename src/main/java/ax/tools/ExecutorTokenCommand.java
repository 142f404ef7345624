package ax.tools;

import ax.bridge.ExecutorTokens;
import ax.protocol.Names;
import io.vertx.core.Vertx;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code ax executor-token --executor-id ID [--ttl-days N]}: prints a token for an executor, signed with
 * {@code AX_EXECUTOR_JWT_SECRET} (the same secret the scheduler nodes verify with). It lives
 * {@link ExecutorTokens#DEFAULT_TTL_DAYS} days unless told otherwise, at most
 * {@link ExecutorTokens#MAX_TTL_DAYS}: the bridge refuses tokens that never expire or live longer.
 */
@Command(name = "executor-token", mixinStandardHelpOptions = true, versionProvider = AxVersion.class,
    description = "Prints an executor token (a JWT whose subject is the executor id) signed with AX_EXECUTOR_JWT_SECRET.")
public final class ExecutorTokenCommand implements Callable<Integer> {
  static final String SECRET_ENV = "AX_EXECUTOR_JWT_SECRET";

  @Option(names = "--executor-id", required = true, paramLabel = "ID",
      description = "the executor's id: 1-64 of [A-Za-z0-9._:-]")
  String executorId;

  @Option(names = "--ttl-days", paramLabel = "N", defaultValue = "" + ExecutorTokens.DEFAULT_TTL_DAYS,
      description = "days the token lives, 1-" + ExecutorTokens.MAX_TTL_DAYS + " (default: ${DEFAULT-VALUE})")
  long ttlDays;

  @Spec
  CommandSpec spec;

  private final Map<String, String> env;

  ExecutorTokenCommand(Map<String, String> env) {
    this.env = env;
  }

  @Override
  public Integer call() {
    if (!Names.isExecutorId(executorId)) {
      throw new ParameterException(spec.commandLine(), "--executor-id must be 1-64 of [A-Za-z0-9._:-]");
    }
    if (ttlDays < 1 || ttlDays > ExecutorTokens.MAX_TTL_DAYS) {
      throw new ParameterException(spec.commandLine(), "--ttl-days must be between 1 and "
          + ExecutorTokens.MAX_TTL_DAYS + " (default " + ExecutorTokens.DEFAULT_TTL_DAYS + ")");
    }
    String secret = env.get(SECRET_ENV);
    try {
      ExecutorTokens.requireStrongSecret(secret);
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("executor-token: " + SECRET_ENV + " must be set to a secret of at least "
          + ExecutorTokens.MIN_SECRET_BYTES + " bytes (" + e.getMessage() + ")");
      return spec.exitCodeOnInvalidInput();
    }
    Vertx vertx = Vertx.vertx();
    try {
      PrintWriter out = spec.commandLine().getOut();
      out.println(ExecutorTokens.mint(vertx, secret, executorId, ttlDays * 86_400));
      out.flush();
      return 0;
    } finally {
      vertx.close();
    }
  }
}
