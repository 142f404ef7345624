-- Every task ax knows. PostgreSQL is the source of truth; the in-memory tiers are rebuilt from here.
CREATE TABLE tasks (
  task_id        bigint       PRIMARY KEY,                 -- snowflake id (TaskIdGenerator), never a sequence
  tenant_id      text         NOT NULL,
  api_key        text         NOT NULL,                    -- the key that submitted it; its secret signs outgoing calls
  task_type      text         NOT NULL CHECK (task_type ~ '^[A-Za-z0-9._:-]{1,128}$'),
  trigger_time   timestamptz  NOT NULL,                    -- millisecond precision (truncated at submission)
  status         text         NOT NULL CHECK (status IN ('CREATED','DELAYED','READY','DISPATCHING',
                                                         'RUNNING','SUCCESS','FAILED','CANCELLED','SKIPPED')),
  priority       smallint     NOT NULL DEFAULT 5 CHECK (priority BETWEEN 0 AND 9),
  max_retry      smallint     NOT NULL DEFAULT 2 CHECK (max_retry BETWEEN 0 AND 10),
  retry_count    smallint     NOT NULL DEFAULT 0 CHECK (retry_count >= 0 AND retry_count <= max_retry),
  attempt        integer      NOT NULL DEFAULT 0 CHECK (attempt >= 0),  -- +1 at every claim
  epoch          bigint       NOT NULL DEFAULT 0 CHECK (epoch >= 0),    -- leader epoch of the last claim
  timeout_ms     integer      NOT NULL DEFAULT 60000 CHECK (timeout_ms BETWEEN 1 AND 86400000),
  callback_url   text         CHECK (length(callback_url) <= 2048),
  processor      text         CHECK (processor ~ '^[A-Za-z0-9._:-]{1,128}$'),
  payload        jsonb,
  biz_key        text         CHECK (length(biz_key) BETWEEN 1 AND 128),
  shard_total    integer      NOT NULL DEFAULT 1 CHECK (shard_total BETWEEN 1 AND 1024),
  last_run_node  text,
  lease_deadline timestamptz,                              -- ack deadline (DISPATCHING) or run deadline (RUNNING)
  result         jsonb,
  error          text,
  created_at     timestamptz  NOT NULL DEFAULT now(),
  updated_at     timestamptz  NOT NULL DEFAULT now(),
  started_at     timestamptz,
  finished_at    timestamptz,
  CONSTRAINT exactly_one_target CHECK ((callback_url IS NULL) <> (processor IS NULL)),
  CONSTRAINT in_flight_has_deadline CHECK (status NOT IN ('DISPATCHING','RUNNING') OR lease_deadline IS NOT NULL),
  CONSTRAINT terminal_has_finish CHECK (status NOT IN ('SUCCESS','FAILED') OR finished_at IS NOT NULL)
);

-- R1's two composite indexes: the loader and the recovery scan walk trigger_time ranges;
-- executors (later) look tasks up by type.
CREATE INDEX tasks_trigger_status ON tasks (trigger_time, status);
CREATE INDEX tasks_type_status ON tasks (task_type, status);

-- Producer idempotency (R5): one task per (tenant, task_type, biz_key). Enforced by the database so
-- concurrent submissions with the same key cannot both win.
CREATE UNIQUE INDEX tasks_biz_key ON tasks (tenant_id, task_type, biz_key) WHERE biz_key IS NOT NULL;

-- The recovery scan looks for in-flight tasks past their deadline. Without this the query would walk
-- the whole (trigger_time, status) index every 30 s; in-flight rows are few, so the partial index is tiny.
CREATE INDEX tasks_in_flight_deadline ON tasks (lease_deadline) WHERE status IN ('DISPATCHING','RUNNING');

-- One row per finished attempt: who ran it, when, and how it ended.
CREATE TABLE task_attempts (
  task_id      bigint      NOT NULL REFERENCES tasks (task_id) ON DELETE CASCADE,
  attempt      integer     NOT NULL CHECK (attempt >= 1),
  node_id      text        NOT NULL,
  executor_id  text,
  started_at   timestamptz,
  finished_at  timestamptz NOT NULL,
  outcome      text        NOT NULL CHECK (outcome IN ('SUCCESS','FAILED','TIMED_OUT')),
  error        text,
  PRIMARY KEY (task_id, attempt)
);

-- Leader lease: the holder of a name is the only node that claims work. The epoch only grows and is
-- stamped on every claim, so a node that lost the lease claims nothing (fencing token).
CREATE TABLE leases (
  name        text        PRIMARY KEY,
  holder      text        NOT NULL,
  epoch       bigint      NOT NULL CHECK (epoch >= 1),
  expires_at  timestamptz NOT NULL,
  acquired_at timestamptz NOT NULL
);

-- Node slots give each running node a distinct 10-bit id for the snowflake generator.
CREATE TABLE node_slots (
  slot       integer     PRIMARY KEY CHECK (slot BETWEEN 0 AND 1023),
  holder     text        NOT NULL,
  expires_at timestamptz NOT NULL
);

-- Access keys for the signed API. The secret must be kept in clear: HMAC verification needs it.
CREATE TABLE api_keys (
  access_key  text        PRIMARY KEY CHECK (access_key ~ '^[A-Za-z0-9_-]{4,64}$'),
  secret      text        NOT NULL CHECK (length(secret) >= 16),
  tenant_id   text        NOT NULL CHECK (length(tenant_id) BETWEEN 1 AND 64),
  rate_limit  text,                                       -- e.g. '50' or '50/100'; NULL = AX_RATE_LIMIT
  disabled    boolean     NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now()
);
