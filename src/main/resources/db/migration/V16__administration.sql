-- Administration (issue 14 part 4): tenants, key rotation with a grace period, deleted keys, and the
-- record of every admin action.

-- Tenants own keys, tasks and schedules. Keys that existed before this table name their tenant only by
-- id; those tenants are created here with their id as name. No foreign key from api_keys: a key's
-- tenant is checked when the key is created (admin API, CLI, AX_BOOTSTRAP_KEY creates its tenant), and
-- existing databases keep working as they are.
CREATE TABLE tenants (
  tenant_id   text        PRIMARY KEY CHECK (tenant_id ~ '^[A-Za-z0-9._:-]{1,64}$'),
  name        text        NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  created_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO tenants (tenant_id, name)
SELECT DISTINCT tenant_id, tenant_id FROM api_keys WHERE tenant_id ~ '^[A-Za-z0-9._:-]{1,64}$'
ON CONFLICT DO NOTHING;

-- secret (and previous_secret) hold either the secret in clear (no AX_MASTER_KEY) or
-- 'enc:v1:' || base64(iv || AES-256-GCM ciphertext+tag) sealed with AX_MASTER_KEY, the access key as
-- associated data. HMAC verification needs the secret itself, so a hash cannot replace it.
-- previous_secret: the secret before the last rotation, still accepted until previous_valid_until.
-- deleted_at: a deleted key is refused and no longer listed; the row stays so that calls of tasks it
-- submitted before deletion are still signed (a receiver must never get an unsigned call).
ALTER TABLE api_keys
  ADD COLUMN previous_secret      text,
  ADD COLUMN previous_valid_until timestamptz,
  ADD COLUMN rotated_at           timestamptz,
  ADD COLUMN deleted_at           timestamptz,
  ADD CONSTRAINT previous_secret_has_an_end CHECK ((previous_secret IS NULL) = (previous_valid_until IS NULL));

-- Who did what, when: one row per admin action, written in the transaction of the change.
CREATE TABLE admin_audit (
  audit_id  bigserial   PRIMARY KEY,
  at        timestamptz NOT NULL DEFAULT now(),
  actor     text        NOT NULL,                -- 'admin-api:<jwt sub>' or 'cli:<os user>'
  action    text        NOT NULL,                -- e.g. key.create, key.rotate, tenant.create
  target    text        NOT NULL,                -- the tenant id or access key acted on
  detail    jsonb       NOT NULL DEFAULT '{}',   -- never a secret
  remote    text                                 -- the caller's address (admin API)
);
