-- R1's index on the due time, kept to the rows that can still become due. Every statement that walks
-- due times asks for DELAYED or READY rows only (the loader, the recovery scan's overdue sweep, the
-- executor dispatch's top-up; in-flight rows have tasks_in_flight_deadline, sharded parents V12's
-- index), yet tasks_next_trigger_status (V4) held an entry for every version of every row: no update of
-- tasks is HOT (status is in the key or predicate of other indexes), so the claim (→ RUNNING) and the
-- completion (→ SUCCESS) each added one, 2 of the 11 btree entries an executed HTTP task cost, and the
-- loader stepped over the entries of every finished task in its window. Partial, an index entry is
-- written at insert and when a retry or a release puts the row back to DELAYED/READY, never for a
-- finished one. task_id completes the loader's (next_trigger_time, task_id) order and cursor.
-- (bench/README.md, History, "2026-12-02 — the pending-rows index" has the measurement.)
CREATE INDEX tasks_pending_due ON tasks (next_trigger_time, task_id) WHERE status IN ('DELAYED', 'READY');
DROP INDEX tasks_next_trigger_status;
