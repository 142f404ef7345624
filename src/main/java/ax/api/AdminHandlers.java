package ax.api;

import ax.admin.KeyMaterial;
import ax.api.auth.AdminAuthHandler;
import ax.bus.Addresses;
import ax.ratelimit.RateLimitSpec;
import ax.store.AdminStore;
import ax.store.AdminStore.Actor;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.RoutingContext;

import java.util.Map;
import java.util.function.BiFunction;

/**
 * The {@code /admin/v1} operations of openapi.yaml (API.md "Administration"): tenants, access keys and
 * the audit record. The schema has validated every body and parameter before these run; the token's
 * subject ({@link AdminAuthHandler#SUBJECT}) is the actor of the audit row each change writes (in the
 * statement of the change, see {@link AdminStore}). After a key changes, every node is told to forget
 * its cached copy ({@link Addresses#KEY_CHANGED}; PostgreSQL announces it as well). A secret is in a
 * response exactly once — when a key is created or rotated — and never in a log line or audit row.
 */
public final class AdminHandlers {
  static final int DEFAULT_LIMIT = 100;
  static final long DEFAULT_GRACE_S = 3_600;

  private final Vertx vertx;
  private final AdminStore store;
  private final Map<String, Handler<RoutingContext>> operations;

  public AdminHandlers(Vertx vertx, AdminStore store) {
    this.vertx = vertx;
    this.store = store;
    this.operations = Map.of(
        "createTenant", this::createTenant,
        "listTenants", this::listTenants,
        "createKey", this::createKey,
        "listKeys", this::listKeys,
        "rotateKey", this::rotateKey,
        "disableKey", ctx -> changeState(ctx, store::disable, "disabled"),
        "enableKey", ctx -> changeState(ctx, store::enable, "active"),
        "deleteKey", ctx -> changeState(ctx, store::delete, null),
        "listAuditEntries", this::listAudit);
  }

  public Map<String, Handler<RoutingContext>> byOperationId() {
    return operations;
  }

  private void createTenant(RoutingContext ctx) {
    JsonObject body = ctx.body().asJsonObject();
    String tenantId = body.getString("tenant_id");
    store.createTenant(tenantId, body.getString("name", tenantId), actor(ctx)).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
      } else if (ar.result().isEmpty()) {
        new Problem(409, "tenant_exists", "Conflict", "tenant_id: a tenant " + tenantId + " exists already").send(ctx);
      } else {
        HttpJson.send(ctx, 201, AdminJson.tenant(ar.result().get()));
      }
    });
  }

  private void listTenants(RoutingContext ctx) {
    store.tenants(limit(ctx)).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
        return;
      }
      JsonArray items = new JsonArray();
      ar.result().forEach(t -> items.add(AdminJson.tenant(t)));
      HttpJson.send(ctx, 200, new JsonObject().put("items", items));
    });
  }

  private void createKey(RoutingContext ctx) {
    JsonObject body = ctx.body().asJsonObject();
    String rateLimit = body.getString("rate_limit");
    if (rateLimit != null) {
      try {
        RateLimitSpec.parse(rateLimit);
      } catch (IllegalArgumentException e) {
        Problem.validation("rate_limit: " + e.getMessage()).send(ctx);
        return;
      }
    }
    String tenantId = body.getString("tenant_id");
    String accessKey = KeyMaterial.newAccessKey();
    store.createKey(accessKey, KeyMaterial.newSecret(), tenantId, rateLimit, actor(ctx)).onComplete(ar -> {
      if (ar.failed() && ar.cause() instanceof AdminStore.UnknownTenant unknown) {
        new Problem(404, "tenant_not_found", "Not found", "tenant_id: " + unknown.getMessage()).send(ctx);
      } else if (ar.failed()) {
        ctx.fail(ar.cause());
      } else {
        keyChanged(accessKey);
        HttpJson.send(ctx, 201, AdminJson.created(ar.result()));
      }
    });
  }

  private void listKeys(RoutingContext ctx) {
    store.keys(ctx.queryParams().get("tenant_id"), limit(ctx)).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
        return;
      }
      JsonArray items = new JsonArray();
      ar.result().forEach(k -> items.add(AdminJson.key(k)));
      HttpJson.send(ctx, 200, new JsonObject().put("items", items));
    });
  }

  private void rotateKey(RoutingContext ctx) {
    String accessKey = ctx.pathParam("access_key");
    JsonObject body = ctx.body() == null ? null : ctx.body().asJsonObject(); // the body is optional
    long grace = body == null ? DEFAULT_GRACE_S : body.getLong("grace_s", DEFAULT_GRACE_S);
    store.rotate(accessKey, KeyMaterial.newSecret(), grace, actor(ctx)).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
      } else if (ar.result().isEmpty()) {
        Problem.notFound("no such access key").send(ctx);
      } else {
        keyChanged(accessKey);
        HttpJson.send(ctx, 200, AdminJson.rotated(ar.result().get()));
      }
    });
  }

  /** @param status the key's status after the change, answered with it; null = deleted (204) */
  private void changeState(RoutingContext ctx, BiFunction<String, Actor, Future<Boolean>> change, String status) {
    String accessKey = ctx.pathParam("access_key");
    change.apply(accessKey, actor(ctx)).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
      } else if (!ar.result()) {
        Problem.notFound("no such access key").send(ctx);
      } else {
        keyChanged(accessKey);
        if (status == null) {
          ctx.response().setStatusCode(204).end();
        } else {
          HttpJson.send(ctx, 200, new JsonObject().put("access_key", accessKey).put("status", status));
        }
      }
    });
  }

  private void listAudit(RoutingContext ctx) {
    String before = ctx.queryParams().get("before");
    store.audit(before == null ? Long.MAX_VALUE : Long.parseLong(before), limit(ctx)).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
        return;
      }
      JsonArray items = new JsonArray();
      ar.result().forEach(e -> items.add(AdminJson.audit(e)));
      JsonObject out = new JsonObject().put("items", items);
      if (!ar.result().isEmpty() && ar.result().size() == limit(ctx)) {
        out.put("next_before", ar.result().get(ar.result().size() - 1).auditId());
      }
      HttpJson.send(ctx, 200, out);
    });
  }

  private void keyChanged(String accessKey) {
    vertx.eventBus().publish(Addresses.KEY_CHANGED, accessKey);
  }

  private static Actor actor(RoutingContext ctx) {
    SocketAddress remote = ctx.request().remoteAddress();
    return new Actor("admin-api:" + ctx.get(AdminAuthHandler.SUBJECT), remote == null ? null : remote.hostAddress());
  }

  /** The schema bounds it (1–1000). */
  private static int limit(RoutingContext ctx) {
    String limit = ctx.queryParams().get("limit");
    return limit == null ? DEFAULT_LIMIT : Integer.parseInt(limit);
  }
}
