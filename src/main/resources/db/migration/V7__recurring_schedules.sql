-- Issue 12: recurring schedules (API.md "Recurring schedules").
--
-- A schedule is a definition (cron, fixed rate or fixed delay, in a time zone, within a window) plus a
-- template of the task each occurrence is. Occurrences are ordinary tasks: the leader creates each one
-- ahead of time, when its due time enters the load window, in the same fenced transaction that moves
-- the schedule's cursor (next_due). The unique key on (schedule_id, scheduled_time) makes a second copy
-- of an occurrence impossible, whoever leads and however often a plan is repeated.
CREATE TABLE schedules (
  schedule_id    bigint       PRIMARY KEY,                -- snowflake id, like task ids
  tenant_id      text         NOT NULL,
  api_key        text         NOT NULL,                   -- occurrences are submitted as this key
  name           text         CHECK (length(name) BETWEEN 1 AND 128),
  cron           text         CHECK (length(cron) BETWEEN 1 AND 256),
  every_ms       bigint       CHECK (every_ms >= 1000),
  after_ms       bigint       CHECK (after_ms >= 1000),
  time_zone      text         NOT NULL DEFAULT 'UTC' CHECK (length(time_zone) BETWEEN 1 AND 64),
  start_at       timestamptz  NOT NULL,                   -- every_ms counts from here; nothing is due before it
  end_at         timestamptz,
  max_runs       bigint       CHECK (max_runs >= 1),
  misfire        text         NOT NULL DEFAULT 'fire_once' CHECK (misfire IN ('fire_once','fire_all','skip')),
  overlap        text         NOT NULL DEFAULT 'allow' CHECK (overlap IN ('allow','skip','buffer_one')),
  template       jsonb        NOT NULL,                   -- the task fields of each occurrence
  status         text         NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE','PAUSED','ENDED')),
  next_due       timestamptz,                             -- the first due time not materialised; NULL: none known
  runs           bigint       NOT NULL DEFAULT 0 CHECK (runs >= 0),
  skipped        bigint       NOT NULL DEFAULT 0 CHECK (skipped >= 0),
  misfired       bigint       NOT NULL DEFAULT 0 CHECK (misfired >= 0),
  last_fire_time timestamptz,                             -- scheduled time of the latest occurrence created
  created_at     timestamptz  NOT NULL DEFAULT now(),
  updated_at     timestamptz  NOT NULL DEFAULT now(),
  CONSTRAINT one_recurrence CHECK (num_nonnulls(cron, every_ms, after_ms) = 1),
  CONSTRAINT window_in_order CHECK (end_at IS NULL OR end_at >= start_at),
  CONSTRAINT ended_has_no_next CHECK (status <> 'ENDED' OR next_due IS NULL)
);

-- A name is unique per tenant among schedules that have not ended.
CREATE UNIQUE INDEX schedules_tenant_name ON schedules (tenant_id, name) WHERE name IS NOT NULL AND status <> 'ENDED';
-- The materialiser's question: which active schedules have a due time inside the load window? Small:
-- one row per active schedule, ordered by the cursor.
CREATE INDEX schedules_active_next_due ON schedules (next_due) WHERE status = 'ACTIVE';
CREATE INDEX schedules_tenant_created ON schedules (tenant_id, created_at DESC, schedule_id DESC);

ALTER TABLE tasks ADD COLUMN schedule_id bigint;
ALTER TABLE tasks ADD COLUMN scheduled_time timestamptz;
ALTER TABLE tasks ADD CONSTRAINT occurrence_has_both CHECK ((schedule_id IS NULL) = (scheduled_time IS NULL));
CREATE UNIQUE INDEX tasks_schedule_occurrence ON tasks (schedule_id, scheduled_time) WHERE schedule_id IS NOT NULL;

-- Due times that passed unfired (misfire policy): never dropped without a record. count is NULL for a
-- range too long to visit whose due times cannot be counted without visiting them (a cron missed for
-- months).
CREATE TABLE schedule_misfires (
  schedule_id  bigint       NOT NULL REFERENCES schedules (schedule_id) ON DELETE CASCADE,
  first_due    timestamptz  NOT NULL,
  last_due     timestamptz  NOT NULL,
  count        bigint       CHECK (count >= 1),
  policy       text         NOT NULL,
  recorded_at  timestamptz  NOT NULL DEFAULT now(),
  PRIMARY KEY (schedule_id, first_due),
  CONSTRAINT range_in_order CHECK (last_due >= first_due)
);
