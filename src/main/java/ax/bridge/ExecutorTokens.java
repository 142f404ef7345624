package ax.bridge;

import ax.protocol.Names;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Executor tokens: HS256 JWTs, issuer {@code ax}, audience {@code ax-executor}, subject = executor id,
 * signed with {@code AX_EXECUTOR_JWT_SECRET}. Minted by {@code ax executor-token}, verified by the
 * bridge on an executor's first frame; both sides build their {@link JWTAuth} here so the claims they
 * agree on are written down once.
 */
public final class ExecutorTokens {
  public static final String ISSUER = "ax";
  public static final String AUDIENCE = "ax-executor";
  public static final String ALGORITHM = "HS256";
  /** vertx-auth-jwt accepts any HS256 key, even 5 bytes; a short secret is brute-forceable, so refuse it. */
  public static final int MIN_SECRET_BYTES = 32;
  /** What {@code ax executor-token} mints when not told otherwise: a month, so a leaked token dies on its own. */
  public static final int DEFAULT_TTL_DAYS = 30;
  /** The longest lifetime minted, and the furthest {@code exp} the bridge accepts (plus {@link #EXP_SLACK_SECONDS}). */
  public static final int MAX_TTL_DAYS = 365;
  /** Clock difference tolerated between the machine that minted a token and the node checking it. */
  public static final long EXP_SLACK_SECONDS = 86_400;
  private static final long DAY_SECONDS = 86_400;

  private ExecutorTokens() {
  }

  /** Throws {@link IllegalArgumentException} unless the secret has at least {@link #MIN_SECRET_BYTES} UTF-8 bytes. */
  public static void requireStrongSecret(String secret) {
    int bytes = secret == null ? 0 : secret.getBytes(StandardCharsets.UTF_8).length;
    if (bytes < MIN_SECRET_BYTES) {
      throw new IllegalArgumentException("executor JWT secret must be at least " + MIN_SECRET_BYTES
          + " bytes (got " + bytes + ")");
    }
  }

  /** The verifier the bridge uses: checks signature, expiry, issuer and audience. */
  public static JWTAuth verifier(Vertx vertx, String secret) {
    requireStrongSecret(secret);
    return JWTAuth.create(vertx, new JWTAuthOptions()
        .addPubSecKey(new PubSecKeyOptions().setAlgorithm(ALGORITHM).setBuffer(secret))
        .setJWTOptions(new JWTOptions().setIssuer(ISSUER).setAudience(List.of(AUDIENCE))));
  }

  /** A token for {@code executorId} valid for {@code ttlSeconds}, at most {@link #MAX_TTL_DAYS} days. */
  public static String mint(Vertx vertx, String secret, String executorId, long ttlSeconds) {
    Names.requireExecutorId(executorId);
    if (ttlSeconds <= 0 || ttlSeconds > MAX_TTL_DAYS * DAY_SECONDS) {
      throw new IllegalArgumentException("token ttl must be between 1 second and " + MAX_TTL_DAYS + " days");
    }
    return verifier(vertx, secret).generateToken(new JsonObject().put("sub", executorId),
        new JWTOptions().setAlgorithm(ALGORITHM).setIssuer(ISSUER).setAudience(List.of(AUDIENCE))
            .setExpiresInSeconds((int) ttlSeconds));
  }

  /**
   * Verifies a token and returns its subject, the executor id. Fails when the token is bad, expired,
   * for another audience, names an id outside the allowed alphabet, or has no bounded lifetime: the JWT
   * library accepts a token without {@code exp} forever, so a missing {@code exp}, or one further away
   * than {@link #MAX_TTL_DAYS} days (and {@link #EXP_SLACK_SECONDS}), is refused here.
   */
  public static Future<String> verify(JWTAuth verifier, String token) {
    if (token == null || token.isBlank()) {
      return Future.failedFuture(new IllegalArgumentException("missing token"));
    }
    return verifier.authenticate(new TokenCredentials(token)).compose(user -> {
      String problem = lifetimeProblem(user.attributes().getValue("exp"), System.currentTimeMillis() / 1000);
      if (problem != null) {
        return Future.failedFuture(new IllegalArgumentException(problem));
      }
      String subject = user.subject();
      return Names.isExecutorId(subject) ? Future.succeededFuture(subject)
          : Future.failedFuture(new IllegalArgumentException("token subject is not a valid executor id"));
    });
  }

  /** Null when {@code exp} (seconds) bounds the token's life, else why not. */
  static String lifetimeProblem(Object exp, long nowSeconds) {
    if (!(exp instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())) {
      return "token has no exp claim: executor tokens must expire";
    }
    if (n.longValue() - nowSeconds > MAX_TTL_DAYS * DAY_SECONDS + EXP_SLACK_SECONDS) {
      return "token expires more than " + MAX_TTL_DAYS + " days from now";
    }
    return null;
  }
}
