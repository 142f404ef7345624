INSERT INTO pgb_tasks (trigger_time, status, payload) SELECT now() + g * interval '1 ms', 'DELAYED', jsonb_build_object('i', g) FROM generate_series(1, 1000) AS g;
