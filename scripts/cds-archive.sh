#!/usr/bin/env bash
# Writes a class-data sharing archive for a build of ax (README, "Faster starts and restarts"): starts one
# node as a one-member cluster (so Hazelcast's classes are in the archive too) on a database of its own,
# waits until it serves, stops it with SIGTERM — the JVM writes the archive as it exits — and drops the
# database. Start nodes with `java -XX:SharedArchiveFile=OUT -jar JAR server` afterwards; an archive made
# for another jar or JDK is refused with one warning and the node starts without it.
#
#   scripts/cds-archive.sh OUT [JAR]     (JAR defaults to target/ax.jar; PostgreSQL at 127.0.0.1:5432 or
#                                         AX_CDS_PG, a postgresql:// URL of a server whose user may create databases)
#
# About 9 s on a 2-core machine. Exit status 0 when OUT was written.
set -euo pipefail
out="$(realpath -m "${1:?usage: scripts/cds-archive.sh OUT [JAR]}")"
jar="$(realpath "${2:-target/ax.jar}")"
pg="${AX_CDS_PG:-postgresql://postgres@127.0.0.1:5432}"
db="ax_cds_$$_$RANDOM"
work="$(mktemp -d)"
pid=""
cleanup() {
  [ -z "$pid" ] || kill -9 "$pid" 2> /dev/null || true
  psql "$pg/postgres" -qc "drop database if exists $db" > /dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

psql "$pg/postgres" -qc "create database $db"
cluster_port=$(free_port)
rm -f "$out"
env AX_PG_URL="$pg/$db" AX_NODE_ID=cds-training AX_HTTP_PORT=0 AX_BRIDGE_HOST=127.0.0.1 AX_BRIDGE_PORT=0 \
  AX_CLUSTER_MEMBERS="127.0.0.1:$cluster_port" AX_CLUSTER_PORT="$cluster_port" \
  AX_BOOTSTRAP_KEY=cds-training:cds-training-secret-0123456789:cds \
  AX_EXECUTOR_JWT_SECRET=cds-training-jwt-secret-0123456789abcdef \
  java -XX:ArchiveClassesAtExit="$out" -Xlog:cds=off -Xlog:cds+dynamic=off -jar "$jar" server > "$work/node.log" 2>&1 &
pid=$!
waited=0
until grep -q "server is up" "$work/node.log"; do
  if ! kill -0 "$pid" 2> /dev/null || [ "$waited" -ge 1200 ]; then # exited, or not up within 60 s
    echo "cds-archive: the training node did not come up:" >&2
    cat "$work/node.log" >&2
    exit 1
  fi
  sleep 0.05
  waited=$((waited + 1))
done
kill -TERM "$pid"
wait "$pid" || true
pid=""
if [ ! -s "$out" ]; then
  echo "cds-archive: the node exited without writing $out:" >&2
  tail -n 20 "$work/node.log" >&2
  exit 1
fi
echo "cds-archive: $out ($(du -m "$out" | cut -f1) MB) for $jar"
