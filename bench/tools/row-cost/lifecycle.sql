-- One processor task's writes as ax's executor path makes them (ExecutionStore's DISPATCH and COMPLETE, the
-- batch insert), 100 tasks per statement, @N@ tasks; prints the WAL bytes per task of each step. run.sh puts
-- in @N@, @QUEUE@ (the queue variants also write task_due and task_inflight) and @VARIANT@.
SELECT pg_current_wal_lsn() AS l0 \gset
DO $$ BEGIN
  FOR b IN 0 .. (@N@ / 100) - 1 LOOP
    INSERT INTO tasks (task_id, tenant_id, api_key, task_type, trigger_time, next_trigger_time, status, priority,
                       max_retry, timeout_ms, processor, payload, fingerprint)
    SELECT b * 100 + i, 'tenant-1', 'key-1', 'bench.task', now() + interval '1 minute', now() + interval '1 minute',
           'DELAYED', 5, 2, 30000, 'noop', '{"n": 1}', md5((b * 100 + i)::text)::uuid
      FROM generate_series(1, 100) i;
    IF @QUEUE@ THEN
      INSERT INTO task_due SELECT b * 100 + i, now() + interval '1 minute' FROM generate_series(1, 100) i;
    END IF;
    COMMIT;
  END LOOP;
END $$;
SELECT pg_current_wal_lsn() AS l1 \gset
DO $$ BEGIN
  FOR b IN 0 .. (@N@ / 100) - 1 LOOP
    UPDATE tasks t SET status = 'DISPATCHING', attempt = t.attempt + 1, epoch = 1, executor_id = 'ex-1',
           last_run_node = 'node-0', lease_deadline = now() + interval '30 s', updated_at = now()
     WHERE t.task_id BETWEEN b * 100 + 1 AND b * 100 + 100;
    IF @QUEUE@ THEN
      DELETE FROM task_due WHERE task_id BETWEEN b * 100 + 1 AND b * 100 + 100;
      INSERT INTO task_inflight SELECT b * 100 + i, now() + interval '30 s' FROM generate_series(1, 100) i;
    END IF;
    COMMIT;
  END LOOP;
END $$;
SELECT pg_current_wal_lsn() AS l2 \gset
DO $$ BEGIN
  FOR b IN 0 .. (@N@ / 100) - 1 LOOP
    WITH done AS (
      UPDATE tasks t SET status = 'SUCCESS', started_at = coalesce(t.started_at, now()), result = NULL, error = NULL,
             finished_at = now(), lease_deadline = NULL, updated_at = now()
       WHERE t.task_id BETWEEN b * 100 + 1 AND b * 100 + 100
      RETURNING t.task_id, t.attempt, t.last_run_node, t.started_at)
    INSERT INTO task_attempts (task_id, attempt, node_id, executor_id, started_at, finished_at, outcome, error)
    SELECT task_id, attempt, last_run_node, 'ex-1', started_at, now(), 'SUCCESS', NULL FROM done
    ON CONFLICT (task_id, attempt) DO NOTHING;
    IF @QUEUE@ THEN
      DELETE FROM task_inflight WHERE task_id BETWEEN b * 100 + 1 AND b * 100 + 100;
    END IF;
    COMMIT;
  END LOOP;
END $$;
SELECT pg_current_wal_lsn() AS l3 \gset
SELECT pg_stat_force_next_flush();
SELECT '@VARIANT@' AS variant,
       round(pg_wal_lsn_diff(:'l1', :'l0') / @N@) AS insert_b,
       round(pg_wal_lsn_diff(:'l2', :'l1') / @N@) AS dispatch_b,
       round(pg_wal_lsn_diff(:'l3', :'l2') / @N@) AS complete_b,
       round(pg_wal_lsn_diff(:'l3', :'l0') / @N@) AS total_b,
       (SELECT n_tup_hot_upd || ' of ' || n_tup_upd FROM pg_stat_user_tables WHERE relname = 'tasks') AS hot_updates;
