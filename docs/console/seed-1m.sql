-- 1 000 000 finished and pending tasks for tenant :tenant (key :key), for measuring the console's API
-- calls on a large table (docs/console/README.md). Run against a database ax has migrated:
--   psql -v tenant=dev -v key=dev-key -f docs/console/seed-1m.sql
-- Mix: 20 task types; 96 % SUCCESS, 2 % FAILED, 1 % CANCELLED, 1 % DELAYED (due in 30..60 days, so
-- nothing fires); a biz_key on every 10th row; every 500th row an occurrence of schedule 4242;
-- created over the last 30 days, oldest first. Ids are far below the snowflake ids ax issues today.
INSERT INTO tasks (task_id, tenant_id, api_key, task_type, trigger_time, next_trigger_time, status,
                   callback_url, payload, biz_key, created_at, updated_at, started_at, finished_at,
                   schedule_id, scheduled_time, attempt)
SELECT i,
       :'tenant', :'key',
       'bench.type' || (i % 20),
       t, t,
       s,
       'http://127.0.0.1:9/hook',
       jsonb_build_object('n', i),
       CASE WHEN i % 10 = 0 THEN 'order-' || i END,
       c, c,
       CASE WHEN s IN ('SUCCESS', 'FAILED') THEN t END,
       CASE WHEN s IN ('SUCCESS', 'FAILED', 'CANCELLED') THEN t + interval '20 ms' END,
       CASE WHEN i % 500 = 0 THEN 4242 END,
       CASE WHEN i % 500 = 0 THEN t END,
       CASE WHEN s IN ('SUCCESS', 'FAILED') THEN 1 ELSE 0 END
  FROM (SELECT i,
               now() - interval '30 days' + (i * interval '2592 ms') AS c,
               CASE WHEN i % 100 = 7 THEN 'FAILED' WHEN i % 100 = 42 THEN 'FAILED'
                    WHEN i % 100 = 13 THEN 'CANCELLED' WHEN i % 100 = 99 THEN 'DELAYED'
                    ELSE 'SUCCESS' END AS s
          FROM generate_series(1, 1000000) AS i) g,
       LATERAL (SELECT CASE WHEN g.s = 'DELAYED' THEN now() + interval '30 days' + (g.i * interval '2592 ms')
                            ELSE g.c + interval '1 s' END AS t) tt;
ANALYZE tasks;
