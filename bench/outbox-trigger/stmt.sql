CREATE OR REPLACE FUNCTION t_outbox_stmt() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO t_notes (task_id, status)
  SELECT n.task_id, n.status FROM new_rows n JOIN old_rows o USING (task_id)
   WHERE n.notify_url IS NOT NULL AND o.status IS DISTINCT FROM n.status AND n.status IN ('SUCCESS','FAILED','CANCELLED','SKIPPED')
  ON CONFLICT (task_id) DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER t_outbox_stmt AFTER UPDATE ON t_tasks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION t_outbox_stmt();
