-- Issue 12: task dependencies (API.md "Dependencies and duplicates") and the overlap policy of recurring
-- schedules. Both hold a task in CREATED until another task's terminal transition lets it go, and both
-- are settled by triggers on that transition, so the release (or the skip) commits in the statement that
-- settles the parent, whichever path settles it (an HTTP outcome, an executor's result, a cancel,
-- recovery giving up). A crash between the two is impossible. Tasks let go are announced on the channel
-- ax_ready (after commit) so the leader's wheel takes them at once; the recovery scan finds any whose
-- announcement was missed.

-- Dependencies, flat: one row per (parent, child). Checked one level at a time: a parent's SUCCESS
-- counts down its children's waiting_on; no walk over the graph on that path.
CREATE TABLE task_dependencies (
  parent_id bigint NOT NULL,
  child_id  bigint NOT NULL,
  PRIMARY KEY (parent_id, child_id)
);
CREATE INDEX task_dependencies_child ON task_dependencies (child_id);

-- waiting_on: parents of a CREATED child not yet SUCCESS (NULL for a task without dependencies).
-- has_dependants: set on a parent when a child is stored, so the trigger below runs only for tasks that
-- have children; every other terminal transition pays one boolean test.
ALTER TABLE tasks ADD COLUMN waiting_on smallint CHECK (waiting_on >= 0);
ALTER TABLE tasks ADD COLUMN has_dependants boolean NOT NULL DEFAULT false;

-- Alert events raised by the scheduler itself: a record now, delivered by the alerting of issue 13.
CREATE TABLE alert_events (
  event_id     bigserial    PRIMARY KEY,
  kind         text         NOT NULL,             -- task_skipped
  tenant_id    text         NOT NULL,
  task_id      bigint,
  detail       text         NOT NULL,
  created_at   timestamptz  NOT NULL DEFAULT now(),
  delivered_at timestamptz
);
CREATE INDEX alert_events_undelivered ON alert_events (event_id) WHERE delivered_at IS NULL;

-- The occurrences of a schedule that have not ended (held ones included): what the overlap policy asks
-- about. Partial, so one-shot tasks never enter it and a schedule's finished history is not walked.
CREATE INDEX tasks_schedule_pending ON tasks (schedule_id)
  WHERE schedule_id IS NOT NULL AND status IN ('CREATED','DELAYED','READY','DISPATCHING','RUNNING');

-- Announces tasks that became due-able (DELAYED/READY) to the leader: "id:trigger_ms:priority" entries,
-- comma separated, at most 150 per notification (a payload must stay under 8000 bytes).
CREATE FUNCTION ax_announce_ready(ids bigint[], triggers timestamptz[], priorities smallint[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  i int;
  chunk text := NULL;
  n int := 0;
BEGIN
  IF ids IS NULL THEN
    RETURN;
  END IF;
  FOR i IN 1 .. array_length(ids, 1) LOOP
    chunk := concat_ws(',', chunk,
        ids[i] || ':' || floor(extract(epoch FROM triggers[i]) * 1000)::bigint || ':' || priorities[i]);
    n := n + 1;
    IF n = 150 THEN
      PERFORM pg_notify('ax_ready', chunk);
      chunk := NULL;
      n := 0;
    END IF;
  END LOOP;
  IF chunk IS NOT NULL THEN
    PERFORM pg_notify('ax_ready', chunk);
  END IF;
END
$$;

-- A parent reached a terminal status.
-- SUCCESS: each CREATED child counts down; the last parent lets it go at max(its trigger time, now), its
--   shards with it. One level only.
-- FAILED, CANCELLED, SKIPPED: every CREATED descendant can never run; all of them are SKIPPED in one
--   statement (error names the parent it waited on) with an alert event each. The walk is recursive but
--   this is the failure path; doing it level by level through nested triggers would nest as deep as the
--   chain is long, and a long chain would exhaust the stack inside the parent's own transition.
CREATE FUNCTION ax_settle_dependants() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids bigint[];
  triggers timestamptz[];
  priorities smallint[];
  skipped int;
BEGIN
  IF NEW.status = 'SUCCESS' THEN
    WITH released AS (
      UPDATE tasks c SET
        waiting_on        = c.waiting_on - 1,
        status            = CASE WHEN c.waiting_on > 1 THEN 'CREATED'
                                 WHEN c.processor IS NULL AND c.trigger_time <= now() THEN 'READY'
                                 ELSE 'DELAYED' END,
        next_trigger_time = CASE WHEN c.waiting_on > 1 THEN c.next_trigger_time
                                 ELSE greatest(c.trigger_time, date_trunc('milliseconds', now())) END,
        updated_at        = now()
        FROM task_dependencies d
       WHERE d.parent_id = NEW.task_id AND c.task_id = d.child_id AND c.status = 'CREATED'
      RETURNING c.task_id, c.status, c.next_trigger_time, c.priority
    ), shards AS (
      UPDATE tasks s SET status = 'DELAYED', next_trigger_time = r.next_trigger_time, updated_at = now()
        FROM released r
       WHERE s.parent_id = r.task_id AND r.status <> 'CREATED' AND s.status = 'CREATED'
      RETURNING s.task_id, s.next_trigger_time, s.priority
    ), ready AS (
      SELECT task_id, next_trigger_time, priority FROM released WHERE status <> 'CREATED'
      UNION ALL
      SELECT task_id, next_trigger_time, priority FROM shards
    )
    SELECT array_agg(task_id), array_agg(next_trigger_time), array_agg(priority) INTO ids, triggers, priorities
      FROM ready;
    PERFORM ax_announce_ready(ids, triggers, priorities);
  ELSE
    WITH RECURSIVE doomed(task_id, cause, cause_status) AS (
      SELECT d.child_id, NEW.task_id, NEW.status
        FROM task_dependencies d JOIN tasks t ON t.task_id = d.child_id AND t.status = 'CREATED'
       WHERE d.parent_id = NEW.task_id
      UNION
      SELECT d.child_id, d.parent_id, 'SKIPPED'
        FROM doomed x
        JOIN task_dependencies d ON d.parent_id = x.task_id
        JOIN tasks t ON t.task_id = d.child_id AND t.status = 'CREATED'
    ), first_cause AS (
      SELECT DISTINCT ON (task_id) task_id, cause, cause_status FROM doomed ORDER BY task_id, cause
    ), gone AS (
      UPDATE tasks c SET status = 'SKIPPED', waiting_on = NULL, finished_at = now(), updated_at = now(),
                         error = 'dependency ' || f.cause || ' ended ' || f.cause_status
        FROM first_cause f
       WHERE c.task_id = f.task_id AND c.status = 'CREATED'
      RETURNING c.task_id, c.tenant_id, c.error
    ), shards AS (
      UPDATE tasks s SET status = 'SKIPPED', finished_at = now(), updated_at = now(), error = g.error
        FROM gone g
       WHERE s.parent_id = g.task_id AND s.status = 'CREATED'
    ), alerted AS (
      INSERT INTO alert_events (kind, tenant_id, task_id, detail)
      SELECT 'task_skipped', tenant_id, task_id, error FROM gone
      RETURNING task_id
    )
    SELECT count(*) INTO skipped FROM alerted;
    IF skipped > 0 THEN
      PERFORM pg_notify('ax_skipped', skipped::text);
    END IF;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER tasks_settle_dependants
  AFTER UPDATE OF status ON tasks
  FOR EACH ROW
  WHEN (NEW.has_dependants AND OLD.status IS DISTINCT FROM NEW.status
        AND NEW.status IN ('SUCCESS','FAILED','CANCELLED','SKIPPED'))
  EXECUTE FUNCTION ax_settle_dependants();

-- An occurrence reached a terminal status (replaces V8's function, which only set a fixed delay's next
-- due time; that part is unchanged).
--
-- Overlap: an occurrence of a schedule with overlap skip or buffer_one is created CREATED ("held")
-- when another occurrence of that schedule has not ended (see RecurringScheduleStore). When the last
-- one running ends, the held ones are decided here, in the transition that ended it:
--   skip:       held ones whose due time has passed came due while the previous one ran: SKIPPED;
--               the first one not due yet is let go at its time.
--   buffer_one: the oldest held one is let go now (it waited); others already due are SKIPPED (only
--               one may wait); the rest stay held.
-- The schedule row is locked first: the materialiser holds that lock while it decides whether a new
-- occurrence is held, so the two cannot miss each other (a held occurrence nobody lets go).
CREATE OR REPLACE FUNCTION ax_schedule_after_occurrence() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  policy text;
  first_held bigint;
  ids bigint[];
  triggers timestamptz[];
  priorities smallint[];
  n int;
BEGIN
  UPDATE schedules
     SET next_due = date_trunc('milliseconds', now()) + after_ms * interval '1 millisecond', updated_at = now()
   WHERE schedule_id = NEW.schedule_id AND after_ms IS NOT NULL AND status <> 'ENDED' AND next_due IS NULL;

  SELECT overlap INTO policy FROM schedules WHERE schedule_id = NEW.schedule_id;
  IF policy IS NULL OR policy = 'allow' THEN
    RETURN NULL;
  END IF;
  PERFORM 1 FROM schedules WHERE schedule_id = NEW.schedule_id FOR NO KEY UPDATE;
  PERFORM 1 FROM tasks
    WHERE schedule_id = NEW.schedule_id AND status IN ('DELAYED','READY','DISPATCHING','RUNNING') LIMIT 1;
  IF FOUND THEN
    RETURN NULL; -- another occurrence is still under way; its end decides
  END IF;

  IF policy = 'buffer_one' THEN
    SELECT task_id INTO first_held FROM tasks
     WHERE schedule_id = NEW.schedule_id AND status = 'CREATED' ORDER BY scheduled_time LIMIT 1;
  ELSE
    SELECT task_id INTO first_held FROM tasks
     WHERE schedule_id = NEW.schedule_id AND status = 'CREATED' AND scheduled_time >= now()
     ORDER BY scheduled_time LIMIT 1;
  END IF;

  -- Let go first: the skips below fire this trigger again, and they must then find one under way.
  IF first_held IS NOT NULL THEN
    WITH released AS (
      UPDATE tasks SET
        status            = CASE WHEN processor IS NULL AND trigger_time <= now() THEN 'READY' ELSE 'DELAYED' END,
        next_trigger_time = greatest(trigger_time, date_trunc('milliseconds', now())),
        updated_at        = now()
       WHERE task_id = first_held
      RETURNING task_id, next_trigger_time, priority
    ), shards AS ( -- a sharded occurrence's shards were held with it
      UPDATE tasks s SET status = 'DELAYED', next_trigger_time = r.next_trigger_time, updated_at = now()
        FROM released r
       WHERE s.parent_id = r.task_id AND s.status = 'CREATED'
      RETURNING s.task_id, s.next_trigger_time, s.priority
    ), ready AS (
      SELECT task_id, next_trigger_time, priority FROM released
      UNION ALL
      SELECT task_id, next_trigger_time, priority FROM shards
    )
    SELECT array_agg(task_id), array_agg(next_trigger_time), array_agg(priority) INTO ids, triggers, priorities
      FROM ready;
    PERFORM ax_announce_ready(ids, triggers, priorities);
  END IF;

  WITH gone AS (
    UPDATE tasks SET status = 'SKIPPED', finished_at = now(), updated_at = now(),
                     error = 'overlap ' || policy || ': the previous occurrence had not ended at the due time'
     WHERE schedule_id = NEW.schedule_id AND status = 'CREATED' AND scheduled_time < now()
       AND task_id IS DISTINCT FROM first_held
    RETURNING task_id, error
  ), shards AS (
    UPDATE tasks s SET status = 'SKIPPED', finished_at = now(), updated_at = now(), error = g.error
      FROM gone g
     WHERE s.parent_id = g.task_id AND s.status = 'CREATED'
  )
  SELECT count(*) INTO n FROM gone;
  IF n > 0 THEN
    UPDATE schedules SET skipped = skipped + n, updated_at = now() WHERE schedule_id = NEW.schedule_id;
  END IF;
  RETURN NULL;
END
$$;
