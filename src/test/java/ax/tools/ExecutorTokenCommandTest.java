package ax.tools;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ExecutorTokenCommandTest {
  private static final Map<String, String> ENV = Map.of("AX_EXECUTOR_JWT_SECRET", "0123456789abcdef0123456789abcdef");

  private static CliRun token(String... args) {
    String[] all = new String[args.length + 1];
    all[0] = "executor-token";
    System.arraycopy(args, 0, all, 1, args.length);
    return CliRun.run(ENV, all);
  }

  private static long lifetimeDays(String token) {
    JsonObject claims = new JsonObject(new String(Base64.getUrlDecoder().decode(token.trim().split("\\.")[1]),
        StandardCharsets.UTF_8));
    return (claims.getLong("exp") - claims.getLong("iat")) / 86_400;
  }

  @Test
  void aTokenLivesThirtyDaysByDefault() {
    CliRun r = token("--executor-id", "ex-1");

    assertEquals(0, r.code(), r.err());
    assertEquals(30, lifetimeDays(r.out()));
  }

  @Test
  void aTokenMayLiveAYearButNotADayMore() {
    CliRun year = token("--executor-id", "ex-1", "--ttl-days", "365");
    assertEquals(0, year.code(), year.err());
    assertEquals(365, lifetimeDays(year.out()));

    assertEquals(2, token("--executor-id", "ex-1", "--ttl-days", "366").code());
    assertEquals(2, token("--executor-id", "ex-1", "--ttl-days", "0").code());
    assertEquals(2, token("--executor-id", "ex-1", "--ttl-days", "forever").code());
  }

  @Test
  void anIdOutsideTheNameRulesOrNoSecretIsRefusedWithNothingPrinted() {
    CliRun badId = token("--executor-id", "ex 1");
    assertEquals(2, badId.code());
    assertTrue(badId.err().contains("--executor-id must be 1-64 of"), badId.err());

    CliRun noSecret = CliRun.run(Map.of(), "executor-token", "--executor-id", "ex-1");
    assertEquals(2, noSecret.code());
    assertTrue(noSecret.err().contains("AX_EXECUTOR_JWT_SECRET"), noSecret.err());
    assertEquals("", badId.out() + noSecret.out());
  }
}
