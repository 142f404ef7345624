package ax.bridge;

import ax.protocol.TokenClaims;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.jwt.JWTAuth;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ExecutorTokensTest {
  private static final String SECRET = "0123456789abcdef0123456789abcdef";
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  private String verify(String secret, String token) throws Exception {
    return ExecutorTokens.verify(ExecutorTokens.verifier(vertx, secret), token)
        .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  /** The reason verification gave, failing the test if it succeeded. */
  private String refusal(String secret, String token) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> verify(secret, token));
    return String.valueOf(e.getCause().getMessage());
  }

  @Test
  void aMintedTokenVerifiesToItsExecutorId() throws Exception {
    String token = ExecutorTokens.mint(vertx, SECRET, "ex-1", 3_600);

    assertEquals("ex-1", verify(SECRET, token));
    assertEquals("ex-1", TokenClaims.unverifiedSubject(token)); // what the SDK reads, without the secret
  }

  @Test
  void aTokenSignedWithAnotherSecretIsRefused() {
    String token = ExecutorTokens.mint(vertx, SECRET, "ex-1", 3_600);

    assertTrue(refusal("another-secret-of-at-least-32-bytes!", token).contains("Signature verification failed"));
  }

  @Test
  void anExpiredTokenIsRefused() {
    JWTAuth signer = ExecutorTokens.verifier(vertx, SECRET);
    long now = System.currentTimeMillis() / 1000;
    String expired = signer.generateToken(new JsonObject().put("sub", "ex-1").put("exp", now - 60),
        new JWTOptions().setAlgorithm("HS256").setIssuer(ExecutorTokens.ISSUER)
            .setAudience(List.of(ExecutorTokens.AUDIENCE)));

    assertTrue(refusal(SECRET, expired).contains("expired"));
  }

  @Test
  void aTokenForAnotherAudienceIsRefused() {
    JWTAuth signer = ExecutorTokens.verifier(vertx, SECRET);
    String other = signer.generateToken(new JsonObject().put("sub", "ex-1"),
        new JWTOptions().setAlgorithm("HS256").setIssuer(ExecutorTokens.ISSUER).setAudience(List.of("ax-api"))
            .setExpiresInSeconds(60));

    assertTrue(refusal(SECRET, other).contains("audience"));
  }

  @Test
  void secretsShorterThan32BytesAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> ExecutorTokens.verifier(vertx, "too-short"));
    assertThrows(IllegalArgumentException.class, () -> ExecutorTokens.mint(vertx, "x".repeat(31), "ex-1", 60));
    assertThrows(IllegalArgumentException.class, () -> ExecutorTokens.verifier(vertx, null));
  }

  @Test
  void aTokenIsMintedOnlyForAValidExecutorId() {
    assertThrows(IllegalArgumentException.class, () -> ExecutorTokens.mint(vertx, SECRET, "ex/1", 60));
    assertThrows(IllegalArgumentException.class, () -> ExecutorTokens.mint(vertx, SECRET, "x".repeat(65), 60));
  }

  @Test
  void aNonPositiveTtlIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> ExecutorTokens.mint(vertx, SECRET, "ex-1", 0));
  }

  @Test
  void noTokenIsMintedForLongerThanAYear() {
    long year = ExecutorTokens.MAX_TTL_DAYS * 86_400L;

    assertEquals("ex-1", TokenClaims.unverifiedSubject(ExecutorTokens.mint(vertx, SECRET, "ex-1", year)));
    assertThrows(IllegalArgumentException.class, () -> ExecutorTokens.mint(vertx, SECRET, "ex-1", year + 1));
  }

  @Test
  void aCorrectlySignedTokenWithoutExpIsRefused() {
    JWTAuth signer = ExecutorTokens.verifier(vertx, SECRET);
    String forever = signer.generateToken(new JsonObject().put("sub", "ex-1"),
        new JWTOptions().setAlgorithm("HS256").setIssuer(ExecutorTokens.ISSUER)
            .setAudience(List.of(ExecutorTokens.AUDIENCE)));

    assertTrue(refusal(SECRET, forever).contains("no exp"));
  }

  @Test
  void aCorrectlySignedTokenThatLivesTenYearsIsRefused() {
    JWTAuth signer = ExecutorTokens.verifier(vertx, SECRET);
    long now = System.currentTimeMillis() / 1000;
    String decade = signer.generateToken(new JsonObject().put("sub", "ex-1").put("exp", now + 3_650 * 86_400L),
        new JWTOptions().setAlgorithm("HS256").setIssuer(ExecutorTokens.ISSUER)
            .setAudience(List.of(ExecutorTokens.AUDIENCE)));

    assertTrue(refusal(SECRET, decade).contains("more than 365 days"));
  }

  @Test
  void theLifetimeBoundAllowsADayOfClockDifferenceAndNoMore() {
    long now = 1_800_000_000L;
    long year = ExecutorTokens.MAX_TTL_DAYS * 86_400L;

    assertNull(ExecutorTokens.lifetimeProblem(now + year + 86_400, now));
    assertNotNull(ExecutorTokens.lifetimeProblem(now + year + 86_401, now));
    assertNotNull(ExecutorTokens.lifetimeProblem("1900000000", now), "exp must be a number");
    assertNotNull(ExecutorTokens.lifetimeProblem(now + 0.5, now), "exp must be whole seconds");
    assertNull(ExecutorTokens.lifetimeProblem(now + 60, now));
  }
}
