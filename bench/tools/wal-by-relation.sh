#!/bin/bash
# Where a compare run's WAL goes, per relation and record type: runs one `bench/run.sh compare` workload
# and reads every WAL record written meanwhile with pg_waldump, naming each relation by the bench
# databases' catalogs (captured while they exist: the bench drops them at the end).
#
# usage: bench/tools/wal-by-relation.sh SYSTEM WORKLOAD OUTDIR TASKS [JAR]
#   e.g. bench/tools/wal-by-relation.sh ax-executors spread /tmp/wal 25000 target/ax.jar
#   TASKS: tasks executed in the run, warm-up included (spread: 20 000 + the 5 000 of the warm-up burst).
#
# Needs: a local PostgreSQL whose pg_wal this user can read, and wal_keep_size large enough that the run's
# WAL is still there at the end (CREATE/DROP DATABASE force checkpoints): for example
#   ALTER SYSTEM SET wal_keep_size = '4GB'; SELECT pg_reload_conf();   (and RESET afterwards)
# With pg_stat_statements loaded, the statements' own WAL figures are written too (statements-wal.txt).
set -euo pipefail
system=$1 workload=$2 out=$3 tasks=$4 jar=${5:-target/ax.jar}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(pg_config --bindir 2>/dev/null || ls -d /usr/lib/postgresql/*/bin | tail -1)
psql_=(psql -U postgres -h 127.0.0.1 -Atq)
pg_wal=$("${psql_[@]}" -c "SHOW data_directory")/pg_wal
mkdir -p "$out"
statements=$("${psql_[@]}" -c "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'")
[ "$statements" = 1 ] && "${psql_[@]}" -c "SELECT pg_stat_statements_reset()" > /dev/null
start=$("${psql_[@]}" -c "SELECT pg_current_wal_lsn()")

# relation names of every bench database, every 2 s while the run lasts
(while true; do
  for db in $("${psql_[@]}" -c "SELECT datname FROM pg_database WHERE datname LIKE 'ax_bench_%'"); do
    "${psql_[@]}" -d "$db" -c "SELECT (SELECT oid FROM pg_database WHERE datname = current_database())
        || '|' || relfilenode || '|' || relname FROM pg_class
        WHERE relfilenode <> 0 AND relnamespace = 'public'::regnamespace" 2> /dev/null || true
  done
  sleep 2
done) >> "$out/relmap.txt" &
relmap=$!
trap 'kill $relmap 2> /dev/null || true' EXIT

(cd "$root" && bash bench/run.sh compare -- --systems "$system" --workloads "$workload" --results "$out" \
  --jar "$(cd "$root" && realpath "$jar")") > "$out/bench.log" 2>&1
end=$("${psql_[@]}" -c "SELECT pg_current_wal_lsn()")
kill $relmap
sort -u "$out/relmap.txt" -o "$out/relmap.txt"
echo "$start $end" > "$out/lsn.txt"
"$bin/pg_waldump" -p "$pg_wal" -s "$start" -e "$end" > "$out/waldump.txt"
"$bin/pg_waldump" --stats=record -p "$pg_wal" -s "$start" -e "$end" > "$out/waldump-stats.txt"
if [ "$statements" = 1 ]; then
  psql -U postgres -h 127.0.0.1 -c "SELECT calls, rows, wal_records, wal_fpi, wal_bytes,
      round(wal_bytes::numeric / greatest(rows, 1)) AS bytes_per_row,
      round(wal_records::numeric / greatest(rows, 1), 2) AS records_per_row,
      left(regexp_replace(query, '\s+', ' ', 'g'), 110) AS query
    FROM pg_stat_statements WHERE wal_bytes > 0 ORDER BY wal_bytes DESC LIMIT 20" > "$out/statements-wal.txt"
fi
python3 "$root/bench/tools/wal-by-relation.py" "$out/waldump.txt" "$out/relmap.txt" "$tasks" | tee "$out/wal-by-relation.txt"
rm "$out/waldump.txt" # hundreds of MB; the summary and pg_waldump's own statistics stay
