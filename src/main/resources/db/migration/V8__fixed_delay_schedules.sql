-- Issue 12: fixed-delay schedules (after_ms). The next due time of such a schedule is known only when
-- its previous occurrence reaches a terminal status, so it is set by that very transition: a trigger,
-- which runs in the statement that settles the task, whichever path settles it (an HTTP outcome, an
-- executor's result, a cancel, recovery giving up). A crash between the two is impossible: they commit
-- together. The trigger's WHEN is evaluated for every status change, but the function runs only for
-- occurrences of schedules (schedule_id set) reaching a terminal status; one-shot tasks pay a NULL test.
--
-- The cursor is set while the schedule has not ended, PAUSED included: resuming then finds it (and the
-- misfire policy applies if it passed meanwhile). The materialiser creates the occurrence when the time
-- enters the load window and ends the schedule there when max_runs or end_at says so.
CREATE FUNCTION ax_schedule_after_occurrence() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE schedules
     SET next_due = date_trunc('milliseconds', now()) + after_ms * interval '1 millisecond', updated_at = now()
   WHERE schedule_id = NEW.schedule_id AND after_ms IS NOT NULL AND status <> 'ENDED' AND next_due IS NULL;
  RETURN NULL;
END
$$;

CREATE TRIGGER tasks_schedule_after_occurrence
  AFTER UPDATE OF status ON tasks
  FOR EACH ROW
  WHEN (NEW.schedule_id IS NOT NULL AND OLD.status IS DISTINCT FROM NEW.status
        AND NEW.status IN ('SUCCESS','FAILED','CANCELLED','SKIPPED'))
  EXECUTE FUNCTION ax_schedule_after_occurrence();
