package ax.signing;

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
import java.util.function.Predicate;

/**
 * One kind of token ax mints and checks: an HS256 JWT with issuer {@code ax}, one audience, a subject
 * that must satisfy a rule, and a bounded life. Executor tokens ({@code ax-executor}) and admin tokens
 * ({@code ax-admin}) are two of these; the claims each side agrees on are written down once, here.
 *
 * @param audience       the {@code aud} minted and required
 * @param secretVariable the environment variable holding the secret, named in error messages
 * @param maxTtlSeconds  the longest life minted, and the furthest {@code exp} accepted (plus slack)
 * @param validSubject   what a subject must look like
 * @param subjectRule    that rule in words, for error messages
 */
public record Hs256Tokens(String audience, String secretVariable, long maxTtlSeconds, Predicate<String> validSubject,
                          String subjectRule) {
  public static final String ISSUER = "ax";
  public static final String ALGORITHM = "HS256";
  /** vertx-auth-jwt accepts any HS256 key, even 5 bytes; a short secret is brute-forceable, so refuse it. */
  public static final int MIN_SECRET_BYTES = 32;
  /** Clock difference tolerated between the machine that minted a token and the node checking it. */
  public static final long EXP_SLACK_SECONDS = 86_400;

  /** Throws {@link IllegalArgumentException} unless the secret has at least {@link #MIN_SECRET_BYTES} UTF-8 bytes. */
  public void requireStrongSecret(String secret) {
    int bytes = secret == null ? 0 : secret.getBytes(StandardCharsets.UTF_8).length;
    if (bytes < MIN_SECRET_BYTES) {
      throw new IllegalArgumentException(secretVariable + " must be at least " + MIN_SECRET_BYTES
          + " bytes (got " + bytes + ")");
    }
  }

  /** Checks signature, expiry, issuer and audience. */
  public JWTAuth verifier(Vertx vertx, String secret) {
    requireStrongSecret(secret);
    return JWTAuth.create(vertx, new JWTAuthOptions()
        .addPubSecKey(new PubSecKeyOptions().setAlgorithm(ALGORITHM).setBuffer(secret))
        .setJWTOptions(new JWTOptions().setIssuer(ISSUER).setAudience(List.of(audience))));
  }

  /** A token for {@code subject} valid for {@code ttlSeconds}, at most {@link #maxTtlSeconds()}. */
  public String mint(Vertx vertx, String secret, String subject, long ttlSeconds) {
    if (subject == null || !validSubject.test(subject)) {
      throw new IllegalArgumentException("token subject must be " + subjectRule);
    }
    if (ttlSeconds <= 0 || ttlSeconds > maxTtlSeconds) {
      throw new IllegalArgumentException("token ttl must be between 1 and " + maxTtlSeconds + " seconds");
    }
    return verifier(vertx, secret).generateToken(new JsonObject().put("sub", subject),
        new JWTOptions().setAlgorithm(ALGORITHM).setIssuer(ISSUER).setAudience(List.of(audience))
            .setExpiresInSeconds((int) ttlSeconds));
  }

  /**
   * Verifies a token and returns its subject. Fails when the token is bad, expired, for another
   * audience, has a subject outside the rule, or has no bounded lifetime: the JWT library accepts a token
   * without {@code exp} forever, so a missing {@code exp}, or one further away than
   * {@link #maxTtlSeconds()} (and {@link #EXP_SLACK_SECONDS}), is refused here.
   */
  public Future<String> verify(JWTAuth verifier, String token) {
    if (token == null || token.isBlank()) {
      return Future.failedFuture(new IllegalArgumentException("missing token"));
    }
    return verifier.authenticate(new TokenCredentials(token)).compose(user -> {
      String problem = lifetimeProblem(user.attributes().getValue("exp"), System.currentTimeMillis() / 1000);
      if (problem != null) {
        return Future.failedFuture(new IllegalArgumentException(problem));
      }
      String subject = user.subject();
      return subject != null && validSubject.test(subject) ? Future.succeededFuture(subject)
          : Future.failedFuture(new IllegalArgumentException("token subject must be " + subjectRule));
    });
  }

  /** Null when {@code exp} (seconds) bounds the token's life, else why not. */
  public String lifetimeProblem(Object exp, long nowSeconds) {
    if (!(exp instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())) {
      return "token has no exp claim: " + audience + " tokens must expire";
    }
    if (n.longValue() - nowSeconds > maxTtlSeconds + EXP_SLACK_SECONDS) {
      return "token expires more than " + (maxTtlSeconds % 86_400 == 0 ? maxTtlSeconds / 86_400 + " days"
          : maxTtlSeconds + " s") + " from now";
    }
    return null;
  }
}
