package ax.api;

import ax.clock.Rfc3339;
import ax.store.AdminStore.AuditEntry;
import ax.store.AdminStore.CreatedKey;
import ax.store.AdminStore.KeyInfo;
import ax.store.AdminStore.RotatedKey;
import ax.store.AdminStore.Tenant;
import io.vertx.core.json.JsonObject;

/** The JSON of administration's answers (openapi.yaml's Tenant, Key, CreatedKey, …), shared by the admin API and the CLI. */
public final class AdminJson {
  private AdminJson() {
  }

  public static JsonObject tenant(Tenant t) {
    return new JsonObject().put("tenant_id", t.tenantId()).put("name", t.name())
        .put("created_at", Rfc3339.format(t.createdAt())).put("active_keys", t.activeKeys());
  }

  public static JsonObject key(KeyInfo k) {
    JsonObject o = new JsonObject().put("access_key", k.accessKey()).put("tenant_id", k.tenantId())
        .put("rate_limit", k.rateLimit()).put("status", k.disabled() ? "disabled" : "active")
        .put("created_at", Rfc3339.format(k.createdAt()));
    if (k.rotatedAt() > 0) {
      o.put("rotated_at", Rfc3339.format(k.rotatedAt()));
    }
    if (k.previousValidUntil() > 0) {
      o.put("previous_valid_until", Rfc3339.format(k.previousValidUntil()));
    }
    return o;
  }

  /** The one answer that shows a new key's secret. */
  public static JsonObject created(CreatedKey k) {
    return new JsonObject().put("access_key", k.accessKey()).put("secret", k.secret()).put("tenant_id", k.tenantId())
        .put("created_at", Rfc3339.format(k.createdAt()));
  }

  /** The one answer that shows a rotated key's new secret. */
  public static JsonObject rotated(RotatedKey r) {
    JsonObject out = new JsonObject().put("access_key", r.accessKey()).put("secret", r.secret());
    if (r.previousValidUntil() > 0) {
      out.put("previous_valid_until", Rfc3339.format(r.previousValidUntil()));
    }
    return out;
  }

  public static JsonObject audit(AuditEntry e) {
    return new JsonObject().put("audit_id", e.auditId()).put("at", Rfc3339.format(e.at()))
        .put("actor", e.actor()).put("action", e.action()).put("target", e.target()).put("detail", e.detail())
        .put("remote", e.remote());
  }
}
