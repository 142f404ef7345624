-- tasks_type_status (V1) is read by no statement: listing by type goes through tasks_tenant_created
-- (tenant first), a biz_key lookup through tasks_biz_key. It was written on every insert and on every
-- state change (no update of tasks is HOT: status is in the key or predicate of other indexes): 3 of the
-- 14 btree entries, about 245 of the ~2 800 WAL bytes each executed task cost (bench/README.md, History,
-- "Where ax's WAL goes").
DROP INDEX tasks_type_status;
