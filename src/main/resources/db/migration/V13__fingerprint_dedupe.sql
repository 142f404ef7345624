-- The duplicate rule of API.md: a task with the same tenant, task_type and canonical payload as one
-- whose trigger time is less than 5 s away is not created. The API computes the fingerprint
-- (ax.task.Fingerprint: SHA-256 of tenant, type and canonical JSON, first 128 bits); NULL means the
-- caller asked "dedupe": false, or the row is an occurrence or a shard, which never take part.
--
-- Enforced by PostgreSQL, not by one node's memory, so it holds for concurrent submissions to
-- different nodes: an exclusion constraint over [t - 2.5 s, t + 2.5 s). Two such windows overlap
-- exactly when the trigger times are less than 5 s apart. INSERT ... ON CONFLICT DO NOTHING skips the
-- row that would overlap (waiting for an uncommitted one, as for a unique key), and TaskStore answers
-- with the task it collided with.
--
-- Why not a unique key on (fingerprint, 5-second bucket): two tasks 0.2 s apart on either side of a
-- bucket edge would both be created. Why not a lock and a lookup: the constraint is one index probe in
-- the same statement, with no extra round trip and no lock ordering to get right.
CREATE EXTENSION IF NOT EXISTS btree_gist;

-- timestamptz ± interval is only STABLE in general (adding days depends on the time zone); an
-- interval of milliseconds does not, so this function is truly IMMUTABLE, as an index needs.
CREATE FUNCTION ax_dedupe_window(t timestamptz) RETURNS tstzrange
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN tstzrange(t - interval '2500 milliseconds', t + interval '2500 milliseconds');

ALTER TABLE tasks ADD COLUMN fingerprint uuid;

ALTER TABLE tasks ADD CONSTRAINT tasks_fingerprint_within_5s
  EXCLUDE USING gist (fingerprint WITH =, ax_dedupe_window(trigger_time) WITH &&)
  WHERE (fingerprint IS NOT NULL);
