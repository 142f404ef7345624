#!/usr/bin/env bash
# How long the leader's lease renewal waits while lease-fenced writes run (ARCHITECTURE.md, the fence).
# pgbench on a scratch database shaped like ax's: CLIENTS sessions run ax's fence as fast as they can
# (`WITH lease AS (SELECT … FOR <MODE>) UPDATE … FROM lease`, each its own autocommit statement, as ax's
# claims and hand-over writes are), while one more session renews the lease RATE times a second, as
# LeaderVerticle does every ttl/3. Prints the renewals' latency (pgbench's per-transaction log) and the
# fenced writes' rate for each lock mode: FOR SHARE (ax's) and FOR KEY SHARE with epoch made a key column
# by a unique index over (name, epoch) — tried on 2026-12-07 and not kept (bench/README.md History).
#
#   bench/tools/lease-renewal/run.sh [SECONDS] [CLIENTS] [RATE]      (defaults: 15, 8, 20; PostgreSQL at 127.0.0.1:5432)
set -euo pipefail
seconds="${1:-15}"
clients="${2:-8}"
rate="${3:-20}"
pg=(-h 127.0.0.1 -U postgres)
db="ax_lease_renewal_$$"
work="$(mktemp -d)"
trap 'rm -rf "$work"; psql "${pg[@]}" -qc "drop database if exists $db" > /dev/null 2>&1 || true' EXIT

psql "${pg[@]}" -qc "create database $db"
psql "${pg[@]}" -d "$db" -q <<'SQL'
CREATE TABLE leases (name text PRIMARY KEY, holder text NOT NULL, epoch bigint NOT NULL,
                     expires_at timestamptz NOT NULL, acquired_at timestamptz NOT NULL);
INSERT INTO leases VALUES ('scheduler', 'a', 1, now() + interval '1 hour', now());
CREATE TABLE probe (id int PRIMARY KEY, n bigint NOT NULL);
INSERT INTO probe SELECT g, 0 FROM generate_series(1, 64) g;
SQL
cat > "$work/renew.sql" <<'SQL'
UPDATE leases SET expires_at = now() + interval '1 hour'
 WHERE name = 'scheduler' AND holder = 'a' AND epoch = 1 AND expires_at > now();
SQL

for mode in "SHARE" "KEY SHARE"; do
  if [ "$mode" = "KEY SHARE" ]; then
    psql "${pg[@]}" -d "$db" -qc "CREATE UNIQUE INDEX IF NOT EXISTS leases_name_epoch ON leases (name, epoch)"
  fi
  cat > "$work/fenced.sql" <<SQL
WITH lease AS (SELECT epoch FROM leases
                WHERE name = 'scheduler' AND holder = 'a' AND epoch = 1 AND expires_at > now() FOR $mode)
UPDATE probe p SET n = p.n + lease.epoch FROM lease WHERE p.id = :client_id + 1;
SQL
  rm -f "$work"/pgbench_log.*
  pgbench "${pg[@]}" -n -f "$work/fenced.sql" -c "$clients" -j 1 -T "$seconds" "$db" > "$work/fenced.out" 2>&1 &
  fenced=$!
  (cd "$work" && pgbench "${pg[@]}" -n -f "$work/renew.sql" -c 1 -R "$rate" -T "$seconds" -l "$db" > "$work/renew.out" 2>&1)
  wait "$fenced"
  # pgbench's log: client_id transaction_no time_us script_no epoch_s epoch_us
  sort -n -k3,3 "$work"/pgbench_log.* | awk -v mode="$mode" -v tps="$(grep -o 'tps = [0-9.]*' "$work/fenced.out" | head -1)" '
    { t[NR] = $3 / 1000.0 }
    END { i50 = int(NR * 0.5) + 1; i99 = int(NR * 0.99) + 1; if (i99 > NR) i99 = NR
          printf "FOR %-9s renewals %d: p50 %.1f ms, p99 %.1f ms, max %.1f ms; fenced writes %s\n",
          mode, NR, t[i50], t[i99], t[NR], tps }'
done
