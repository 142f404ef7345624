-- Sharded parents that have not ended: what the executor dispatch's stale-parents sweep
-- (ExecutionStore.STALE_PARENTS, every top-up tick) looks for. Without it, its DELAYED half walked the
-- trigger-time index over every task ever due (a bound "≤ now − 5 s" starts at the oldest row): 7.9 s
-- at 550 000 rows in the recurring benchmark, several at once, on every node that leads. Partial: only
-- sharded parents in DELAYED or RUNNING are in it, so it stays as small as the work it serves.
CREATE INDEX tasks_sharded_parents_open ON tasks (next_trigger_time)
  WHERE parent_id IS NULL AND shard_total > 1 AND status IN ('DELAYED', 'RUNNING');
