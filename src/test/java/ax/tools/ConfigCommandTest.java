package ax.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigCommandTest {

  private static final Map<String, String> ENV = Map.of(
      "AX_PG_URL", "postgresql://ax:pg-password-1@db.internal:5432/ax",
      "AX_REDIS_URL", "redis://:redis-password-2@cache.internal:6379",
      "AX_TICK_MS", "5",
      "AX_RATE_LIMIT", "50/100",
      "AX_BOOTSTRAP_KEY", "ak-1:sk-secret-0123456789abcdef:t1",
      "AX_EXECUTOR_JWT_SECRET", "executor-jwt-secret-0123456789abcdef-0123456789",
      "AX_ALERT_WEBHOOK_URL", "https://hooks.slack.com/services/T0/B0/token-3");

  @Test
  void printsEverySettingAsResolvedWithDefaultsMarked() {
    CliRun run = CliRun.run(ENV, "config");

    assertEquals(0, run.code(), run.err());
    assertTrue(run.out().contains("AX_TICK_MS=5\n"), run.out());
    assertTrue(run.out().contains("AX_RATE_LIMIT=50/100\n"), run.out());
    assertTrue(run.out().contains("AX_CLAIM_BATCH=200   # default\n"), run.out());
    assertTrue(run.out().contains("AX_PG_POOL_SIZE=8   # default\n"), run.out());
    assertTrue(run.out().contains("AX_LEASE_TTL_MS=30000   # default\n"), run.out());
    assertTrue(run.out().contains("AX_RETRY_BACKOFF="), run.out());
  }

  @Test
  void neverPrintsASecret() {
    CliRun run = CliRun.run(ENV, "config");

    for (String secret : new String[] {"pg-password-1", "redis-password-2", "sk-secret", "executor-jwt-secret", "token-3"}) {
      assertFalse(run.out().contains(secret), secret + " printed:\n" + run.out());
    }
    assertTrue(run.out().contains("AX_PG_URL=postgresql://ax:<hidden>@db.internal:5432/ax\n"), run.out());
    assertTrue(run.out().contains("AX_REDIS_URL=redis://:<hidden>@cache.internal:6379\n"), run.out());
    assertTrue(run.out().contains("AX_BOOTSTRAP_KEY=<hidden>\n"), run.out());
    assertTrue(run.out().contains("AX_ALERT_WEBHOOK_URL=<hidden>\n"), run.out());
  }

  @Test
  void aValueANodeWouldRefuseIsNamedWithExitTwo() {
    CliRun run = CliRun.run(Map.of("AX_PG_URL", "postgresql://127.0.0.1/ax", "AX_TICK_MS", "0"), "config");

    assertEquals(AxCli.USAGE, run.code());
    assertTrue(run.err().contains("AX_TICK_MS=0 is outside 1..1000"), run.err());
    assertEquals("", run.out());
  }

  @Test
  void withoutADatabaseUrlItSaysWhatServerNeeds() {
    CliRun run = CliRun.run(Map.of(), "config");

    assertEquals(AxCli.USAGE, run.code());
    assertTrue(run.err().contains("AX_PG_URL is required"), run.err());
  }

  @Test
  void withDevItShowsWhatAxDevWouldRunWith() {
    CliRun run = CliRun.run(Map.of(), "config", "--dev");

    assertEquals(0, run.code(), run.err());
    assertTrue(run.out().contains("AX_PG_URL=   # default: an embedded PostgreSQL, discarded on exit\n"), run.out());
    assertTrue(run.out().contains("AX_BOOTSTRAP_KEY=   # default: dev-<random>, printed at start\n"), run.out());
    assertTrue(run.out().contains("AX_CALLBACK_ALLOWLIST=127.0.0.1,localhost   # default\n"), run.out());
    CliRun server = CliRun.run(Map.of("AX_PG_URL", "postgresql://127.0.0.1/ax"), "config");
    assertTrue(server.out().contains("AX_CALLBACK_ALLOWLIST=   # not set\n"), server.out());
  }
}
