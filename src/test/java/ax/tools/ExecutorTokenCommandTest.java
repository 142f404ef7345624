package ax.tools;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ExecutorTokenCommandTest {
  private static final Map<String, String> ENV = Map.of("AX_EXECUTOR_JWT_SECRET", "0123456789abcdef0123456789abcdef");

  /** Runs the command and returns {exit code, stdout}. */
  private static Object[] run(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
      int code = ExecutorTokenCommand.run(args, ENV);
      return new Object[] {code, captured.toString(StandardCharsets.UTF_8).trim()};
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  private static long lifetimeDays(String token) {
    JsonObject claims = new JsonObject(new String(Base64.getUrlDecoder().decode(token.split("\\.")[1]),
        StandardCharsets.UTF_8));
    return (claims.getLong("exp") - claims.getLong("iat")) / 86_400;
  }

  @Test
  void aTokenLivesThirtyDaysByDefault() {
    Object[] r = run("--executor-id", "ex-1");

    assertEquals(0, r[0]);
    assertEquals(30, lifetimeDays((String) r[1]));
  }

  @Test
  void aTokenMayLiveAYearButNotADayMore() {
    Object[] year = run("--executor-id", "ex-1", "--ttl-days", "365");
    assertEquals(0, year[0]);
    assertEquals(365, lifetimeDays((String) year[1]));

    assertEquals(2, run("--executor-id", "ex-1", "--ttl-days", "366")[0]);
    assertEquals(2, run("--executor-id", "ex-1", "--ttl-days", "0")[0]);
    assertEquals(2, run("--executor-id", "ex-1", "--ttl-days", "forever")[0]);
  }
}
