-- Remote executors (issue 4). A processor task is handed to one executor session at a time:
-- executor_id names it while DISPATCHING/RUNNING, and outcomes are accepted only from that executor
-- for that attempt, so a late result from an executor declared OFFLINE (or a stale dispatch) changes
-- nothing.
ALTER TABLE tasks ADD COLUMN executor_id text CHECK (executor_id ~ '^[A-Za-z0-9._:-]{1,64}$');

-- The leader's ready queue is rebuilt from here after a takeover, and topped up when READY tasks were
-- left in the database for lack of executor capacity (backpressure). Partial: READY rows are few.
CREATE INDEX tasks_ready_processor ON tasks (priority DESC, trigger_time, task_id)
  WHERE status = 'READY' AND processor IS NOT NULL;

-- Who ran each attempt: executor_id already exists in task_attempts (V1).

-- Sharding (R6): a task with shard_total = N > 1 is a parent that never runs itself; it has N child
-- rows (parent_id, shard_index 0..N-1) that run like any processor task, each with its own attempts,
-- so a lost executor retries only its shards. The parent becomes SUCCESS when every shard is, FAILED
-- as soon as one shard fails for good.
ALTER TABLE tasks ADD COLUMN parent_id bigint REFERENCES tasks (task_id) ON DELETE CASCADE;
ALTER TABLE tasks ADD COLUMN shard_index integer NOT NULL DEFAULT 0 CHECK (shard_index >= 0 AND shard_index < shard_total);
ALTER TABLE tasks ADD CONSTRAINT shards_are_processor_tasks CHECK (shard_total = 1 OR processor IS NOT NULL);
CREATE INDEX tasks_parent ON tasks (parent_id, shard_index) WHERE parent_id IS NOT NULL;
