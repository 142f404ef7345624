-- Issue 9, part 5: failover without late tasks and without repeated calls.

-- trigger_time stays what the caller asked for. When the next attempt is due (a retry's backoff, a
-- re-fire after a lost attempt) is its own column, and everything that schedules reads that one: the
-- loader, the claim, the recovery scan. R1's (trigger_time, status) index becomes an index on it.
ALTER TABLE tasks ADD COLUMN next_trigger_time timestamptz;
UPDATE tasks SET next_trigger_time = trigger_time;
ALTER TABLE tasks ALTER COLUMN next_trigger_time SET NOT NULL;
DROP INDEX tasks_trigger_status;
CREATE INDEX tasks_next_trigger_status ON tasks (next_trigger_time, status);
DROP INDEX tasks_ready_processor;
CREATE INDEX tasks_ready_processor ON tasks (priority DESC, next_trigger_time, task_id)
  WHERE status = 'READY' AND processor IS NOT NULL;

-- An attempt whose caller died with it in flight is LOST: the task is fired again as a new attempt that
-- does not use one of max_retry's retries. refires counts those, so a task that keeps killing its node
-- falls back to the retry budget after a few (OutcomePolicy.MAX_FREE_REFIRES).
ALTER TABLE tasks ADD COLUMN refires smallint NOT NULL DEFAULT 0 CHECK (refires >= 0);
ALTER TABLE task_attempts DROP CONSTRAINT task_attempts_outcome_check;
ALTER TABLE task_attempts ADD CONSTRAINT task_attempts_outcome_check
  CHECK (outcome IN ('SUCCESS','FAILED','TIMED_OUT','LOST'));

-- Who held each term of a lease, and under which cluster member id (null on a single node). A successor
-- re-fires the HTTP calls an older term left in flight as soon as that member has left the cluster.
CREATE TABLE lease_terms (
  name        text        NOT NULL,
  epoch       bigint      NOT NULL CHECK (epoch >= 1),
  holder      text        NOT NULL,
  member      text,
  acquired_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (name, epoch)
);
