#!/bin/bash
# WAL bytes per task of the executor path's writes (insert, DISPATCHING, outcome + attempt row) on ax's
# own schema, and on variants of it, without the scheduler: a model to weigh a schema change before
# building it. Each variant gets a scratch database made from src/main/resources/db/migration.
#
# usage: bench/tools/row-cost/run.sh [N] [VARIANT...]       (N tasks, default 20000; 100 per statement)
# variants:
#   current          the schema as migrated
#   partial-pending  the (next_trigger_time, status) index replaced by one on next_trigger_time over the
#                    pending rows only (CREATED, DELAYED, READY); built once as V19 and withdrawn (bench/README,
#                    2026-12-02): a real burst wrote 2 % less, where this model says 8 %
#   queue-ffNN       no index of tasks names status or lease_deadline (so its updates can be HOT), fillfactor
#                    NN; the pending and in-flight sets kept in two narrow tables instead (task_due,
#                    task_inflight), a row inserted and deleted as a task enters and leaves each
#   floor            not a working schema, a bound: tasks keeps only its primary key (every update can be
#                    HOT, fillfactor 50) and nothing replaces the rest — the cost of a task row, its updates
#                    and its attempt row alone
set -euo pipefail
n=${1:-20000}
shift || true
variants=${*:-current partial-pending queue-ff70 queue-ff50 floor}
here=$(cd "$(dirname "$0")" && pwd)
migrations=$here/../../../src/main/resources/db/migration
psql_=(psql -U postgres -h 127.0.0.1 -q -v ON_ERROR_STOP=1)
for variant in $variants; do
  db=ax_rowcost_${variant//-/_}_$RANDOM
  "${psql_[@]}" -c "CREATE DATABASE $db"
  trap '"${psql_[@]}" -c "DROP DATABASE IF EXISTS $db" > /dev/null' EXIT
  for f in $(ls "$migrations" | sort -t_ -k1.2n); do "${psql_[@]}" -d "$db" -f "$migrations/$f" > /dev/null; done
  queue=false
  case $variant in
    current) ;;
    partial-pending)
      "${psql_[@]}" -d "$db" -c "DROP INDEX tasks_next_trigger_status;
        CREATE INDEX tasks_pending_next_trigger ON tasks (next_trigger_time)
          WHERE status IN ('CREATED', 'DELAYED', 'READY')" ;;
    queue-ff*)
      queue=true
      "${psql_[@]}" -d "$db" -c "DROP INDEX tasks_next_trigger_status, tasks_in_flight_deadline,
          tasks_ready_processor, tasks_schedule_pending, tasks_sharded_parents_open;
        ALTER TABLE tasks SET (fillfactor = ${variant#queue-ff});
        CREATE TABLE task_due (task_id bigint PRIMARY KEY, next_trigger_time timestamptz NOT NULL);
        CREATE INDEX task_due_time ON task_due (next_trigger_time);
        CREATE TABLE task_inflight (task_id bigint PRIMARY KEY, lease_deadline timestamptz NOT NULL);
        CREATE INDEX task_inflight_deadline ON task_inflight (lease_deadline)" ;;
    floor)
      "${psql_[@]}" -d "$db" -c "DO \$\$ DECLARE i text; BEGIN
          FOR i IN SELECT indexrelid::regclass::text FROM pg_index
                    WHERE indrelid = 'tasks'::regclass AND NOT indisprimary LOOP
            EXECUTE 'DROP INDEX ' || i;
          END LOOP; END \$\$;
        ALTER TABLE tasks SET (fillfactor = 50)" ;;
    *) echo "unknown variant $variant" >&2; exit 2 ;;
  esac
  "${psql_[@]}" -d "$db" -c "CHECKPOINT"
  # psql does not expand variables inside the DO blocks' dollar quotes: N and the queue flag are put in here
  sed -e "s/@N@/$n/g" -e "s/@QUEUE@/$queue/g" -e "s/@VARIANT@/$variant/g" "$here/lifecycle.sql" \
    | "${psql_[@]}" -d "$db" -f -
  "${psql_[@]}" -c "DROP DATABASE $db"
  trap - EXIT
done
