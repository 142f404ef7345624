-- Issue 10, finding 1: a trigger time PostgreSQL can store but the Vert.x client cannot decode (a BC
-- date such as 4714-11-24 BC, or a year past 9999) made every read of its row hang, and the row never
-- ran. The API now refuses trigger times outside [now - 366 days, now + 10 years] (TaskRequestParser);
-- these constraints make the database refuse the rest of the impossible range too, whatever writes it.
--
-- Rows such a time was already stored for (by a version before this one) can never run and cannot be
-- read: they are settled FAILED, their error keeps the time they were given, and both times are set to
-- the epoch so that reads work again. The times are rewritten rather than the rows deleted: a client
-- that submitted one can still GET it and see why it failed.
UPDATE tasks
   SET status = 'FAILED',
       error = 'trigger_time ' || trigger_time::text || ' is outside what ax can schedule (1970-01-01 .. 9999-12-31)',
       trigger_time = 'epoch', next_trigger_time = 'epoch',
       lease_deadline = NULL, finished_at = now(), updated_at = now()
 WHERE trigger_time < 'epoch' OR trigger_time >= '10000-01-01 00:00:00+00'
    OR next_trigger_time < 'epoch' OR next_trigger_time >= '10000-01-01 00:00:00+00';

ALTER TABLE tasks
  ADD CONSTRAINT trigger_time_in_range
      CHECK (trigger_time >= 'epoch' AND trigger_time < '10000-01-01 00:00:00+00'),
  ADD CONSTRAINT next_trigger_time_in_range
      CHECK (next_trigger_time >= 'epoch' AND next_trigger_time < '10000-01-01 00:00:00+00');
