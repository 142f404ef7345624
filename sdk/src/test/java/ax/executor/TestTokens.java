package ax.executor;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;

import java.util.List;

/**
 * Executor tokens as the scheduler mints and checks them (HS256, issuer {@code ax}, audience
 * {@code ax-executor}, subject = executor id), for the stand-in bridge of the SDK tests. The SDK itself
 * never verifies a token: it has no JWT library.
 */
final class TestTokens {
  private TestTokens() {
  }

  static JWTAuth verifier(Vertx vertx, String secret) {
    return JWTAuth.create(vertx, new JWTAuthOptions()
        .addPubSecKey(new PubSecKeyOptions().setAlgorithm("HS256").setBuffer(secret))
        .setJWTOptions(new JWTOptions().setIssuer("ax").setAudience(List.of("ax-executor"))));
  }

  static String mint(Vertx vertx, String secret, String executorId, int ttlSeconds) {
    return verifier(vertx, secret).generateToken(new JsonObject().put("sub", executorId),
        new JWTOptions().setAlgorithm("HS256").setIssuer("ax").setAudience(List.of("ax-executor"))
            .setExpiresInSeconds(ttlSeconds));
  }

  static Future<String> verify(JWTAuth verifier, String token) {
    return verifier.authenticate(new TokenCredentials(token)).map(user -> user.subject());
  }
}
