package ax.e2e;

import ax.admin.AdminTokens;
import ax.testing.TestPostgres;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Administration end to end (issue 14 part 4) on a two-node cluster started as an operator would:
 * /admin/v1 behind the admin JWT, a key changed on one node is acted on by the other within 1 s,
 * rotation's grace period, secrets sealed at rest and never shown twice, the audit record, and the CLI
 * working against the same database while the nodes run.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminIT {
  static final String JWT_SECRET = "admin-jwt-secret-for-tests-0123456789abcdef";
  static final String MASTER_KEY = Base64.getEncoder().encodeToString(
      "0123456789abcdef0123456789abcdef".getBytes());
  private static final long ONE_SECOND_MS = 1_000;

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private TestPostgres pg;
  private AxCluster ax;
  private Vertx vertx;
  private String token;

  record Answer(int status, JsonObject body) {
    String code() {
      return body == null ? null : body.getString("code");
    }
  }

  @BeforeAll
  void start() throws Exception {
    pg = TestPostgres.create();
    ax = AxCluster.start(pg, 2, Map.of("AX_ADMIN_JWT_SECRET", JWT_SECRET, "AX_MASTER_KEY", MASTER_KEY));
    vertx = Vertx.vertx();
    token = cli(Map.of("AX_ADMIN_JWT_SECRET", JWT_SECRET), "admin-token", "--subject", "alice").trim();
  }

  @AfterAll
  void stop() throws Exception {
    if (ax != null) {
      ax.close();
    }
    if (vertx != null) {
      vertx.close().await();
    }
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void adminEndpointsRefuseAMissingExpiredForeignOrWrongAudienceTokenAndATenantKey() throws Exception {
    assertProblem(401, "missing_token", admin(0, "GET", "/admin/v1/keys", null, null));
    assertProblem(401, "invalid_token", admin(0, "GET", "/admin/v1/keys", null, "not-a-jwt"));
    assertProblem(401, "invalid_token", admin(0, "GET", "/admin/v1/keys", null,
        jwt(JWT_SECRET, AdminTokens.AUDIENCE, new JsonObject().put("sub", "eve").put("exp", nowS() - 60))));
    assertProblem(401, "invalid_token", admin(0, "GET", "/admin/v1/keys", null,
        jwt(JWT_SECRET, "ax-executor", new JsonObject().put("sub", "eve").put("exp", nowS() + 600))));
    assertProblem(401, "invalid_token", admin(0, "GET", "/admin/v1/keys", null,
        jwt("another-secret-of-at-least-32-bytes-000000", AdminTokens.AUDIENCE,
            new JsonObject().put("sub", "eve").put("exp", nowS() + 600))));
    assertProblem(401, "invalid_token", admin(0, "GET", "/admin/v1/keys", null,
        jwt(JWT_SECRET, AdminTokens.AUDIENCE, new JsonObject().put("sub", "eve"))), "a token must expire");
    // a tenant's correctly signed request carries no admin token
    ApiClient.Reply tenant = ax.api(0).get("/admin/v1/keys");
    assertEquals(401, tenant.status(), tenant.raw().body());
    assertEquals("missing_token", tenant.code());
    assertEquals(200, admin(1, "GET", "/admin/v1/keys", null, token).status());
  }

  @Test
  void aKeyCreatedOnOneNodeWorksOnTheOtherAndIsRefusedThereWithinOneSecondOfBeingDisabled() throws Exception {
    Answer tenant = admin(0, "POST", "/admin/v1/tenants", new JsonObject().put("tenant_id", "acme").put("name", "Acme"),
        token);
    assertEquals(201, tenant.status(), tenant.body().encode());
    assertProblem(409, "tenant_exists", admin(1, "POST", "/admin/v1/tenants",
        new JsonObject().put("tenant_id", "acme"), token));
    Answer created = admin(0, "POST", "/admin/v1/keys", new JsonObject().put("tenant_id", "acme"), token);
    assertEquals(201, created.status(), created.body().encode());
    ApiClient onOther = client(1, created.body());
    assertEquals(200, onOther.get("/openapi/v1/tasks?limit=1").status(), "node 1 accepts a key node 0 created");

    assertEquals(200, admin(0, "POST", "/admin/v1/keys/" + onOther.key + "/disable", null, token).status());
    long refusedAfter = msUntilStatus(onOther, 401);
    System.out.println("AdminIT: disabled on node 0, refused by node 1 after " + refusedAfter + " ms");
    assertTrue(refusedAfter <= ONE_SECOND_MS, "node 1 refused the disabled key after " + refusedAfter + " ms");

    assertEquals(200, admin(0, "POST", "/admin/v1/keys/" + onOther.key + "/enable", null, token).status());
    assertTrue(msUntilStatus(onOther, 200) <= ONE_SECOND_MS, "enabled again on node 1 within 1 s");

    JsonArray listed = admin(1, "GET", "/admin/v1/keys?tenant_id=acme", null, token).body().getJsonArray("items");
    assertEquals(1, listed.size());
    assertEquals("active", listed.getJsonObject(0).getString("status"));
    assertFalse(listed.encode().contains(created.body().getString("secret")), "a listing never shows a secret");

    assertEquals(204, admin(1, "DELETE", "/admin/v1/keys/" + onOther.key, null, token).status());
    assertTrue(msUntilStatus(client(0, created.body()), 401) <= ONE_SECOND_MS, "deleted: refused on node 0");
    assertProblem(404, "not_found", admin(0, "POST", "/admin/v1/keys/" + onOther.key + "/enable", null, token));
    assertEquals(0, admin(0, "GET", "/admin/v1/keys?tenant_id=acme", null, token).body().getJsonArray("items").size());
    assertProblem(404, "tenant_not_found", admin(0, "POST", "/admin/v1/keys",
        new JsonObject().put("tenant_id", "no-such-tenant"), token));
  }

  @Test
  void aRotatedKeysOldSecretWorksForTheGracePeriodAndNotAfter() throws Exception {
    admin(0, "POST", "/admin/v1/tenants", new JsonObject().put("tenant_id", "rot"), token);
    Answer created = admin(0, "POST", "/admin/v1/keys", new JsonObject().put("tenant_id", "rot"), token);
    ApiClient old = client(1, created.body());
    assertEquals(200, old.get("/openapi/v1/tasks?limit=1").status());

    Answer rotated = admin(0, "POST", "/admin/v1/keys/" + old.key + "/rotate", new JsonObject().put("grace_s", 3), token);
    assertEquals(200, rotated.status(), rotated.body().encode());
    assertNotEquals(created.body().getString("secret"), rotated.body().getString("secret"));
    assertTrue(rotated.body().containsKey("previous_valid_until"));
    ApiClient fresh = new ApiClient(ax.nodes.get(1).port, old.key, rotated.body().getString("secret"));
    assertTrue(msUntilStatus(fresh, 200) <= ONE_SECOND_MS, "the new secret works on node 1 within 1 s");
    assertEquals(200, old.get("/openapi/v1/tasks?limit=1").status(), "the old secret still works in its grace");
    long refusedAfter = msUntilStatus(old, 401, 10_000);
    assertTrue(refusedAfter > 1_000, "the old secret was refused after " + refusedAfter + " ms, before its grace ended");
    assertEquals("signature_mismatch", old.get("/openapi/v1/tasks?limit=1").code());

    Answer again = admin(1, "POST", "/admin/v1/keys/" + old.key + "/rotate", new JsonObject().put("grace_s", 0), token);
    assertFalse(again.body().containsKey("previous_valid_until"));
    assertTrue(msUntilStatus(fresh, 401) <= ONE_SECOND_MS, "grace 0: the replaced secret is refused at once");
  }

  @Test
  void secretsAreSealedAtRestAndTheAuditRecordsWhoDidWhatWithoutThem() throws Exception {
    admin(0, "POST", "/admin/v1/tenants", new JsonObject().put("tenant_id", "audited"), token);
    Answer created = admin(1, "POST", "/admin/v1/keys", new JsonObject().put("tenant_id", "audited")
        .put("rate_limit", "5/10"), token);
    String secret = created.body().getString("secret");
    try (Connection c = pg.connect(); ResultSet rs = c.createStatement().executeQuery(
        "SELECT access_key, secret FROM api_keys")) {
      while (rs.next()) {
        assertTrue(rs.getString("secret").startsWith("enc:v1:"), rs.getString("access_key") + " is sealed at rest "
            + "(the bootstrap key included)");
        assertFalse(rs.getString("secret").contains(secret));
      }
    }
    JsonArray audit = admin(0, "GET", "/admin/v1/audit?limit=1000", null, token).body().getJsonArray("items");
    assertFalse(audit.encode().contains(secret), "no secret in the audit record");
    JsonObject entry = find(audit, "key.create", created.body().getString("access_key"));
    assertEquals("admin-api:alice", entry.getString("actor"));
    assertEquals("audited", entry.getJsonObject("detail").getString("tenant_id"));
    assertEquals("127.0.0.1", entry.getString("remote"));
    find(audit, "tenant.create", "audited");
  }

  @Test
  void theCommandLineChangesKeysOfARunningClusterWithinOneSecond() throws Exception {
    Map<String, String> env = Map.of("AX_PG_URL", pg.url(), "AX_MASTER_KEY", MASTER_KEY);
    JsonObject created = new JsonObject(cli(env, "keys", "create", "--tenant", "cli-tenant"));
    ApiClient viaCli = client(1, created);
    assertTrue(msUntilStatus(viaCli, 200) <= ONE_SECOND_MS, "a key made by the CLI is accepted");
    cli(env, "keys", "disable", viaCli.key);
    long refusedAfter = msUntilStatus(viaCli, 401);
    System.out.println("AdminIT: disabled by the CLI, refused by node 1 after " + refusedAfter + " ms");
    assertTrue(refusedAfter <= ONE_SECOND_MS, "refused " + refusedAfter + " ms after the CLI disabled it");
    JsonArray audit = admin(0, "GET", "/admin/v1/audit?limit=1000", null, token).body().getJsonArray("items");
    assertTrue(find(audit, "key.disable", viaCli.key).getString("actor").startsWith("cli:"));
  }

  // ---- helpers

  private ApiClient client(int node, JsonObject key) {
    return new ApiClient(ax.nodes.get(node).port, key.getString("access_key"), key.getString("secret"));
  }

  private long msUntilStatus(ApiClient client, int status) throws Exception {
    return msUntilStatus(client, status, 5_000);
  }

  /** Polls a signed list request until it answers {@code status}; how long that took. */
  static long msUntilStatus(ApiClient client, int status, long timeoutMs) throws Exception {
    long start = System.nanoTime();
    while (true) {
      long elapsed = (System.nanoTime() - start) / 1_000_000;
      if (client.get("/openapi/v1/tasks?limit=1").status() == status) {
        return elapsed;
      }
      if (elapsed > timeoutMs) {
        throw new AssertionError("no " + status + " within " + timeoutMs + " ms");
      }
      Thread.sleep(20);
    }
  }

  private Answer admin(int node, String method, String pathAndQuery, JsonObject body, String bearer) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ax.nodes.get(node).port
        + pathAndQuery)).timeout(Duration.ofSeconds(10));
    if (bearer != null) {
      b.header("Authorization", "Bearer " + bearer);
    }
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body.encode()));
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Answer(r.statusCode(), r.body() != null && r.body().startsWith("{") ? new JsonObject(r.body()) : null);
  }

  private String jwt(String secret, String audience, JsonObject claims) {
    JWTAuth signer = JWTAuth.create(vertx, new JWTAuthOptions()
        .addPubSecKey(new PubSecKeyOptions().setAlgorithm("HS256").setBuffer(secret)));
    return signer.generateToken(claims, new JWTOptions().setAlgorithm("HS256").setIssuer("ax")
        .setAudience(List.of(audience)).setNoTimestamp(true));
  }

  private static long nowS() {
    return System.currentTimeMillis() / 1000;
  }

  private static JsonObject find(JsonArray audit, String action, String target) {
    for (int i = 0; i < audit.size(); i++) {
      JsonObject e = audit.getJsonObject(i);
      if (action.equals(e.getString("action")) && target.equals(e.getString("target"))) {
        return e;
      }
    }
    throw new AssertionError("no " + action + " of " + target + " in the audit record: " + audit.encode());
  }

  private static void assertProblem(int status, String code, Answer a) {
    assertProblem(status, code, a, code);
  }

  private static void assertProblem(int status, String code, Answer a, String message) {
    assertEquals(status, a.status(), message + ": " + (a.body() == null ? "" : a.body().encode()));
    assertEquals(code, a.code(), message);
  }

  /** Runs {@code java -jar ax.jar args…} with only {@code env} as AX_* settings; its stdout. */
  static String cli(Map<String, String> env, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(AxProcess.javaBin(), "-jar", System.getProperty("ax.jar", "target/ax.jar")));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().keySet().removeIf(k -> k.startsWith("AX_"));
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    String err = new String(p.getErrorStream().readAllBytes());
    assertEquals(0, p.waitFor(), String.join(" ", args) + " failed: " + err);
    return out;
  }
}
