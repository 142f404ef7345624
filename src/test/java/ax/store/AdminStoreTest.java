package ax.store;

import ax.admin.SecretSealer;
import ax.store.AdminStore.Actor;
import ax.store.ApiKeyStore.ApiKey;
import io.vertx.sqlclient.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Base64;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Administration's statements against the real PostgreSQL: each change with its audit row, sealed secrets. */
class AdminStoreTest {
  private static final Actor ALICE = new Actor("admin-api:alice", "10.0.0.7");
  private static StoreFixture db;
  private static ApiKeyStore keys;
  private static AdminStore admin;

  @BeforeAll
  static void setUp() {
    db = new StoreFixture();
    keys = new ApiKeyStore(db.pool, SecretSealer.fromBase64(Base64.getEncoder().encodeToString(new byte[32])));
    admin = new AdminStore(db.pool, keys);
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  @Test
  void aTenantIsCreatedOnceAndEveryCreationIsAudited() {
    assertTrue(admin.createTenant("t-once", "Once", ALICE).await().isPresent());
    assertTrue(admin.createTenant("t-once", "Again", ALICE).await().isEmpty(), "the second is refused");
    assertEquals(1, auditCount("tenant.create", "t-once"), "only the change that happened is recorded");
    assertTrue(admin.tenants(1000).await().stream().anyMatch(t -> t.tenantId().equals("t-once") && t.name().equals("Once")));
  }

  @Test
  void aKeyIsStoredSealedReadBackInClearAndNeedsItsTenant() {
    admin.createTenant("t-keys", "Keys", ALICE).await();
    admin.createKey("ak_sealed_1", "secret-in-clear-0123456789", "t-keys", "5/10", ALICE).await();
    Row stored = db.pool.query("SELECT secret FROM api_keys WHERE access_key = 'ak_sealed_1'").execute().await()
        .iterator().next();
    assertTrue(stored.getString("secret").startsWith(SecretSealer.PREFIX));
    ApiKey read = keys.find("ak_sealed_1").await().orElseThrow();
    assertEquals("secret-in-clear-0123456789", read.secret());
    assertEquals("5/10", read.rateLimit());
    assertTrue(read.acceptsRequests());

    Throwable refused = assertThrows(Throwable.class,
        () -> admin.createKey("ak_orphan_1", "secret-in-clear-0123456789", "no-tenant", null, ALICE).await());
    assertInstanceOf(AdminStore.UnknownTenant.class, refused);
    assertTrue(keys.find("ak_orphan_1").await().isEmpty());
    assertEquals(0, auditCount("key.create", "ak_orphan_1"));
  }

  @Test
  void rotationKeepsThePreviousSecretForItsGraceOnlyAndASecondRotationEndsIt() {
    admin.createTenant("t-rot", "Rot", ALICE).await();
    admin.createKey("ak_rot_1", "first-secret-0123456789", "t-rot", null, ALICE).await();
    long now = db.dbNow();
    AdminStore.RotatedKey r = admin.rotate("ak_rot_1", "second-secret-0123456789", 60, ALICE).await().orElseThrow();
    assertTrue(Math.abs(r.previousValidUntil() - (now + 60_000)) < 5_000, "grace ends 60 s from now");
    ApiKey k = keys.find("ak_rot_1").await().orElseThrow();
    assertEquals("second-secret-0123456789", k.secret());
    assertEquals("first-secret-0123456789", k.previousSecretAt(now).orElseThrow());
    assertTrue(k.previousSecretAt(r.previousValidUntil()).isEmpty(), "not at the end of the grace");

    admin.rotate("ak_rot_1", "third-secret-0123456789", 0, ALICE).await().orElseThrow();
    ApiKey k3 = keys.find("ak_rot_1").await().orElseThrow();
    assertTrue(k3.previousSecretAt(now).isEmpty(), "grace 0: the replaced secret is not kept");
    assertTrue(admin.rotate("ak_nobody", "x-secret-0123456789", 0, ALICE).await().isEmpty());
    assertEquals(2, auditCount("key.rotate", "ak_rot_1"));
  }

  @Test
  void disabledAndDeletedKeysAreRefusedButStillSignTheirTasksCalls() {
    admin.createTenant("t-state", "State", ALICE).await();
    admin.createKey("ak_state_1", "state-secret-0123456789", "t-state", null, ALICE).await();
    assertTrue(admin.disable("ak_state_1", ALICE).await());
    ApiKey disabled = keys.find("ak_state_1").await().orElseThrow();
    assertFalse(disabled.acceptsRequests());
    assertEquals("state-secret-0123456789", disabled.secret(), "outgoing calls are still signed");
    assertTrue(admin.enable("ak_state_1", ALICE).await());
    assertTrue(keys.find("ak_state_1").await().orElseThrow().acceptsRequests());

    assertTrue(admin.delete("ak_state_1", ALICE).await());
    assertFalse(keys.find("ak_state_1").await().orElseThrow().acceptsRequests());
    assertFalse(admin.enable("ak_state_1", ALICE).await(), "a deleted key cannot come back");
    assertFalse(admin.delete("ak_state_1", ALICE).await());
    assertTrue(admin.keys("t-state", 100).await().isEmpty(), "deleted keys are not listed");
    List<String> actions = db.pool.query("SELECT action FROM admin_audit WHERE target = 'ak_state_1' ORDER BY audit_id")
        .execute().await().stream().map(r -> r.getString("action")).toList();
    assertEquals(List.of("key.create", "key.disable", "key.enable", "key.delete"), actions);
  }

  @Test
  void secretsStoredInClearBeforeAMasterKeyAreSealedAtStart() {
    db.pool.query("INSERT INTO api_keys (access_key, secret, tenant_id) VALUES ('ak_legacy_1', "
        + "'legacy-secret-0123456789', 'legacy')").execute().await();
    assertTrue(keys.resealSecrets().await() >= 1);
    Row stored = db.pool.query("SELECT secret FROM api_keys WHERE access_key = 'ak_legacy_1'").execute().await()
        .iterator().next();
    assertTrue(stored.getString("secret").startsWith(SecretSealer.PREFIX));
    assertEquals("legacy-secret-0123456789", keys.find("ak_legacy_1").await().orElseThrow().secret());
    assertEquals(0, keys.resealSecrets().await(), "nothing left in clear");

    ApiKeyStore withoutMasterKey = new ApiKeyStore(db.pool, null);
    assertThrows(IllegalStateException.class, () -> withoutMasterKey.find("ak_legacy_1").await(),
        "a sealed secret cannot be read without AX_MASTER_KEY");
  }

  @Test
  void changingTheMasterKeyResealsEverySecretUnderTheNewOne() {
    String oldKey = Base64.getEncoder().encodeToString(new byte[32]);
    String newKey = Base64.getEncoder().encodeToString("n".repeat(32).getBytes());
    admin.createTenant("t-master", "Master", ALICE).await();
    admin.createKey("ak_master_1", "master-secret-0123456789", "t-master", null, ALICE).await();
    admin.rotate("ak_master_1", "master-secret-rotated-0123", 600, ALICE).await(); // a previous secret too

    ApiKeyStore changing = new ApiKeyStore(db.pool, SecretSealer.fromBase64(newKey).withPrevious(oldKey));
    assertEquals("master-secret-rotated-0123", changing.find("ak_master_1").await().orElseThrow().secret(),
        "read under the previous key meanwhile");
    assertTrue(changing.resealSecrets().await() >= 1);
    ApiKeyStore newOnly = new ApiKeyStore(db.pool, SecretSealer.fromBase64(newKey));
    ApiKey k = newOnly.find("ak_master_1").await().orElseThrow();
    assertEquals("master-secret-rotated-0123", k.secret());
    assertEquals("master-secret-0123456789", k.previousSecret(), "the grace secret was resealed too");
    assertThrows(IllegalArgumentException.class, () -> keys.find("ak_master_1").await(),
        "the old master key alone no longer opens it");
    assertEquals(0, changing.resealSecrets().await(), "nothing left to reseal");
  }

  private static int auditCount(String action, String target) {
    return db.pool.preparedQuery("SELECT count(*) FROM admin_audit WHERE action = $1 AND target = $2")
        .execute(io.vertx.sqlclient.Tuple.of(action, target)).await().iterator().next().getLong(0).intValue();
  }
}
