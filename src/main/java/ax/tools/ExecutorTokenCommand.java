package ax.tools;

import ax.bridge.ExecutorTokens;
import ax.protocol.Names;
import io.vertx.core.Vertx;

import java.util.Map;
import java.util.Set;

/**
 * {@code ax executor-token --executor-id ID [--ttl-days N]}: prints a token for an executor, signed with
 * {@code AX_EXECUTOR_JWT_SECRET} (the same secret the scheduler nodes verify with). It lives
 * {@link ExecutorTokens#DEFAULT_TTL_DAYS} days unless told otherwise, at most
 * {@link ExecutorTokens#MAX_TTL_DAYS}: the bridge refuses tokens that never expire or live longer.
 */
public final class ExecutorTokenCommand {
  static final String SECRET_ENV = "AX_EXECUTOR_JWT_SECRET";

  private ExecutorTokenCommand() {
  }

  public static int run(String[] args, Map<String, String> env) {
    Map<String, String> opts;
    try {
      opts = CliOptions.parse(args, Set.of("executor-id", "ttl-days"));
    } catch (IllegalArgumentException e) {
      System.err.println("executor-token: " + e.getMessage());
      return 2;
    }
    String id = opts.get("executor-id");
    if (!Names.isExecutorId(id)) {
      System.err.println("executor-token: --executor-id is required: 1-64 of [A-Za-z0-9._:-]");
      return 2;
    }
    long ttlDays;
    try {
      ttlDays = Long.parseLong(opts.getOrDefault("ttl-days", Integer.toString(ExecutorTokens.DEFAULT_TTL_DAYS)));
    } catch (NumberFormatException e) {
      ttlDays = -1;
    }
    if (ttlDays < 1 || ttlDays > ExecutorTokens.MAX_TTL_DAYS) {
      System.err.println("executor-token: --ttl-days must be a whole number between 1 and "
          + ExecutorTokens.MAX_TTL_DAYS + " (default " + ExecutorTokens.DEFAULT_TTL_DAYS + ")");
      return 2;
    }
    String secret = env.get(SECRET_ENV);
    try {
      ExecutorTokens.requireStrongSecret(secret);
    } catch (IllegalArgumentException e) {
      System.err.println("executor-token: " + SECRET_ENV + " must be set to a secret of at least "
          + ExecutorTokens.MIN_SECRET_BYTES + " bytes (" + e.getMessage() + ")");
      return 2;
    }
    Vertx vertx = Vertx.vertx();
    try {
      System.out.println(ExecutorTokens.mint(vertx, secret, id, ttlDays * 86_400));
      return 0;
    } finally {
      vertx.close();
    }
  }
}
