DROP TABLE IF EXISTS t_tasks, t_notes;
CREATE TABLE t_tasks (task_id bigint PRIMARY KEY, status text NOT NULL, notify_url text, result jsonb, finished_at timestamptz, attempt int, pad text);
CREATE TABLE t_notes (task_id bigint PRIMARY KEY, status text NOT NULL, state text NOT NULL DEFAULT 'PENDING', tries int NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(), claimed_until timestamptz, epoch bigint, created_at timestamptz NOT NULL DEFAULT now(), finished_at timestamptz);
CREATE INDEX t_notes_due ON t_notes (next_attempt_at) WHERE state = 'PENDING';
INSERT INTO t_tasks SELECT g, 'RUNNING', CASE WHEN :hook THEN 'http://127.0.0.1:1/notify' END, NULL, NULL, 1, repeat('x', 200) FROM generate_series(1, 40000) g;
VACUUM ANALYZE t_tasks;
