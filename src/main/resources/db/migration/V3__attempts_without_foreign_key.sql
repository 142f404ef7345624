-- Attempt rows are written only by the statements that settle the task row itself, from that row's
-- RETURNING (ScheduleStore and ExecutionStore: "done" → "logged"), so every attempt names an existing
-- task by construction. The foreign key re-checked it with a row lock on the task per inserted attempt
-- (an RI trigger query each), which cost about a sixth of the result write during an executor burst
-- (README "Performance", issue 4). Nothing deletes tasks today; a future retention purge must delete
-- a task's attempts in the same transaction.
ALTER TABLE task_attempts DROP CONSTRAINT task_attempts_task_id_fkey;
