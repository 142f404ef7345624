package ax.tools;

import ax.admin.AdminTokens;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The admin commands' refusals, in this JVM: each is refused with exit 2 and the reason before anything
 * connects. What they change in a database is AdminIT's (against a running cluster).
 */
class AdminCommandsTest {
  private static final String JWT_SECRET = "admin-jwt-secret-for-tests-0123456789abcdef";
  private static final String MASTER_KEY = Base64.getEncoder().encodeToString(new byte[32]);

  @Test
  void anAdminTokenLivesAnHourByDefaultNamesItsSubjectAndVerifies() {
    CliRun r = CliRun.run(Map.of("AX_ADMIN_JWT_SECRET", JWT_SECRET), "admin-token", "--subject", "ops@example");
    assertEquals(0, r.code(), r.err());
    JsonObject claims = new JsonObject(new String(Base64.getUrlDecoder().decode(r.out().trim().split("\\.")[1]),
        StandardCharsets.UTF_8));
    assertEquals(3_600, claims.getLong("exp") - claims.getLong("iat"));
    assertEquals("ops@example", claims.getString("sub"));
    assertEquals(AdminTokens.AUDIENCE, claims.getValue("aud"));
    Vertx vertx = Vertx.vertx();
    try {
      assertEquals("ops@example", AdminTokens.KIND.verify(AdminTokens.KIND.verifier(vertx, JWT_SECRET), r.out().trim())
          .await());
    } finally {
      vertx.close().await();
    }
  }

  @Test
  void anAdminTokenNeedsAStrongSecretABoundedLifeAndAPlainSubject() {
    CliRun weak = CliRun.run(Map.of("AX_ADMIN_JWT_SECRET", "short"), "admin-token");
    assertEquals(2, weak.code());
    assertTrue(weak.err().contains("AX_ADMIN_JWT_SECRET must be at least 32 bytes"), weak.err());
    Map<String, String> env = Map.of("AX_ADMIN_JWT_SECRET", JWT_SECRET);
    assertEquals(2, CliRun.run(env, "admin-token", "--ttl-s", "" + (AdminTokens.MAX_TTL_SECONDS + 1)).code());
    assertEquals(2, CliRun.run(env, "admin-token", "--ttl-s", "0").code());
    assertEquals(2, CliRun.run(env, "admin-token", "--subject", "two words").code());
  }

  @Test
  void keyCommandsNeedTheDatabaseAndAMasterKeyBeforeTheyConnect() {
    CliRun noDb = CliRun.run(Map.of("AX_MASTER_KEY", MASTER_KEY), "keys", "create", "--tenant", "t1");
    assertEquals(2, noDb.code());
    assertTrue(noDb.err().contains("AX_PG_URL is required"), noDb.err());

    CliRun noMaster = CliRun.run(Map.of("AX_PG_URL", "postgresql://postgres@127.0.0.1:1/none"), "keys", "create",
        "--tenant", "t1");
    assertEquals(2, noMaster.code());
    assertTrue(noMaster.err().contains("AX_MASTER_KEY is required"), noMaster.err());

    CliRun badMaster = CliRun.run(Map.of("AX_PG_URL", "postgresql://postgres@127.0.0.1:1/none",
        "AX_MASTER_KEY", "c2hvcnQ="), "keys", "list");
    assertEquals(2, badMaster.code());
    assertTrue(badMaster.err().contains("must decode to 32 bytes"), badMaster.err());
  }

  @Test
  void badOptionsAreRefusedBeforeAnythingConnects() {
    Map<String, String> env = Map.of("AX_PG_URL", "postgresql://postgres@127.0.0.1:1/none", "AX_MASTER_KEY", MASTER_KEY);
    CliRun badTenant = CliRun.run(env, "keys", "create", "--tenant", "t 1");
    assertEquals(2, badTenant.code());
    assertTrue(badTenant.err().contains("--tenant must be 1-64 of"), badTenant.err());
    CliRun badRate = CliRun.run(env, "keys", "create", "--tenant", "t1", "--rate-limit", "fast");
    assertEquals(2, badRate.code());
    assertEquals(2, CliRun.run(env, "keys", "rotate", "ak_1", "--grace-s", "-1").code());
    CliRun noAction = CliRun.run(env, "keys");
    assertEquals(2, noAction.code());
    assertTrue(noAction.err().contains("an action is required"), noAction.err());
  }
}
