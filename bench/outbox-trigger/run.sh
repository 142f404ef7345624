#!/usr/bin/env bash
# The webhook outbox's cost in PostgreSQL alone (issue 13): 20 000 tasks made SUCCESS in 100 statements of
# 200 rows (the completion writer's batches), each statement its own commit, with no outbox, with V11's
# row-level trigger and with V19's statement-level one, and V19's trigger on tasks without a notify_url
# (what every other UPDATE of tasks pays). Prints each variant's times (ms) over RUNS runs.
# Uses a scratch database "outbox_trigger_bench" on 127.0.0.1:5432 (dropped at the end).
set -euo pipefail
cd "$(dirname "$0")"
RUNS=${RUNS:-6}
DB=outbox_trigger_bench
psql() { command psql -q -h 127.0.0.1 -U postgres "$@"; }
createdb -h 127.0.0.1 -U postgres "$DB"
trap 'dropdb -h 127.0.0.1 -U postgres "$DB"' EXIT
python3 -c '
for b in range(100):
    lo = b * 200 + 1
    print(f"UPDATE t_tasks SET status = '"'"'SUCCESS'"'"', finished_at = now(), result = '"'"'{{\"ok\":true}}'"'"' WHERE task_id BETWEEN {lo} AND {lo + 199};")
' > /tmp/outbox-complete.sql
once() { # variant, hook, trigger file
  psql "$DB" -v hook="$2" -f setup.sql > /dev/null 2>&1
  [[ -n "$3" ]] && psql "$DB" -f "$3" > /dev/null
  local s e; s=$(date +%s%N); psql "$DB" -f /tmp/outbox-complete.sql > /dev/null; e=$(date +%s%N)
  echo "$1 $(( (e - s) / 1000000 ))"
}
for ((i = 0; i < RUNS; i++)); do once none false ""; once row true row.sql; once statement true stmt.sql; once statement-no-hook false stmt.sql; done > /tmp/outbox-times.txt
for v in none row statement statement-no-hook; do
  echo "$v: $(grep "^$v " /tmp/outbox-times.txt | awk '{print $2}' | sort -n | tr '\n' ' ')ms"
done
