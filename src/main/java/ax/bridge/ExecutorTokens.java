package ax.bridge;

import ax.protocol.Names;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import ax.signing.Hs256Tokens;
import io.vertx.ext.auth.jwt.JWTAuth;

/**
 * Executor tokens: HS256 JWTs, issuer {@code ax}, audience {@code ax-executor}, subject = executor id,
 * signed with {@code AX_EXECUTOR_JWT_SECRET}. Minted by {@code ax executor-token}, verified by the
 * bridge on an executor's first frame; both sides build their {@link JWTAuth} here so the claims they
 * agree on are written down once.
 */
public final class ExecutorTokens {
  public static final String ISSUER = Hs256Tokens.ISSUER;
  public static final String AUDIENCE = "ax-executor";
  public static final String ALGORITHM = Hs256Tokens.ALGORITHM;
  public static final int MIN_SECRET_BYTES = Hs256Tokens.MIN_SECRET_BYTES;
  /** What {@code ax executor-token} mints when not told otherwise: a month, so a leaked token dies on its own. */
  public static final int DEFAULT_TTL_DAYS = 30;
  /** The longest lifetime minted, and the furthest {@code exp} the bridge accepts (plus the slack). */
  public static final int MAX_TTL_DAYS = 365;
  public static final long EXP_SLACK_SECONDS = Hs256Tokens.EXP_SLACK_SECONDS;
  private static final long DAY_SECONDS = 86_400;
  private static final Hs256Tokens KIND = new Hs256Tokens(AUDIENCE, "AX_EXECUTOR_JWT_SECRET",
      MAX_TTL_DAYS * DAY_SECONDS, Names::isExecutorId, "an executor id (1-64 of [A-Za-z0-9._:-])");

  private ExecutorTokens() {
  }

  /** Throws {@link IllegalArgumentException} unless the secret has at least {@link #MIN_SECRET_BYTES} UTF-8 bytes. */
  public static void requireStrongSecret(String secret) {
    KIND.requireStrongSecret(secret);
  }

  /** The verifier the bridge uses: checks signature, expiry, issuer and audience. */
  public static JWTAuth verifier(Vertx vertx, String secret) {
    return KIND.verifier(vertx, secret);
  }

  /** A token for {@code executorId} valid for {@code ttlSeconds}, at most {@link #MAX_TTL_DAYS} days. */
  public static String mint(Vertx vertx, String secret, String executorId, long ttlSeconds) {
    Names.requireExecutorId(executorId);
    return KIND.mint(vertx, secret, executorId, ttlSeconds);
  }

  /** Verifies a token and returns its subject, the executor id ({@link Hs256Tokens#verify}). */
  public static Future<String> verify(JWTAuth verifier, String token) {
    return KIND.verify(verifier, token);
  }

  /** Null when {@code exp} (seconds) bounds the token's life, else why not. */
  static String lifetimeProblem(Object exp, long nowSeconds) {
    return KIND.lifetimeProblem(exp, nowSeconds);
  }
}
