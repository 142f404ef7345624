#!/usr/bin/env bash
# CPU an idle ax node uses: one `java -jar J server` on a fresh database with no tasks, its utime+stime
# (/proc/PID/stat, 10 ms ticks) over 60 s after a 30 s settle.
# Usage: bash bench/tools/idle-cpu/idle-cpu.sh JAR TAG [PG_BASE_URL]   (alternate jars, run each twice or more)
set -euo pipefail
jar=$1; tag=$2; pg=${3:-postgresql://postgres@127.0.0.1:5432}
db=ax_idle_${tag//[^a-z0-9_]/_}_$$
psql "$pg/postgres" -qc "create database $db"
AX_PG_URL="$pg/$db" AX_HTTP_PORT=0 AX_BRIDGE_PORT=0 java -Xmx512m -jar "$jar" server > "/tmp/idle-cpu-$tag.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; psql "$pg/postgres" -qc "drop database if exists $db"' EXIT
sleep 30
t0=$(awk '{print $14+$15}' /proc/$pid/stat); sleep 60; t1=$(awk '{print $14+$15}' /proc/$pid/stat)
echo "$tag: $((t1-t0)) ticks (10 ms) of CPU in 60 s idle = $(( (t1-t0)*10/60 )) ms per second"
