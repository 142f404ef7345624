#!/usr/bin/env bash
# What a node's start costs, with and without a class-data sharing archive (README "JVM flags"):
# the time from `java -jar` to "server is up" and the process's CPU (user + system) at that moment, then its
# CPU over the next 5 s. First one training start writes the archive (-XX:ArchiveClassesAtExit, written when
# the node exits on SIGTERM), then RUNS starts without and with it, alternating; medians at the end.
#
#   [JAVA=BIN] bench/tools/start-cost.sh [RUNS] [JAR]   (defaults: java on PATH, 5, target/ax.jar; PostgreSQL at 127.0.0.1:5432)
#   JAVA=A JAVA_B=B bench/tools/start-cost.sh [RUNS] [JAR]   two runtimes instead, no archive of the jar:
#                 starts with A and with B, alternating (e.g. two runtimes made by scripts/image-root.sh)
#
# Each start gets a database of its own (dropped after) and a lone node (no cluster), so the figure is
# the JVM's and ax's own start, not a cluster join's.
set -euo pipefail
runs="${1:-5}"
jar="$(realpath "${2:-target/ax.jar}")"
java="${JAVA:-java}"
work="$(mktemp -d)"
archive="$work/ax.jsa"
tck="$(getconf CLK_TCK)"
trap 'rm -rf "$work"' EXIT

cpu_ms() { # utime + stime of a process, in ms
  local st
  read -r -a st < "/proc/$1/stat"
  echo $(( (st[13] + st[14]) * 1000 / tck ))
}

# start FLAGS → prints "ready_ms cpu_at_ready_ms cpu_next_5s_ms"
start() {
  local db="ax_startcost_$$_$RANDOM" t0 t1 pid c1 c2
  psql -h 127.0.0.1 -U postgres -qc "create database $db"
  t0=$(date +%s%N)
  env AX_PG_URL="postgresql://postgres@127.0.0.1:5432/$db" AX_NODE_ID=start-cost AX_HTTP_PORT=0 \
    AX_BOOTSTRAP_KEY=start-cost:start-cost-secret-0123456789abcdef:bench AX_CALLBACK_ALLOWLIST=127.0.0.1 \
    "$java" "$@" -jar "$jar" server > "$work/node.log" 2>&1 &
  pid=$!
  local waited=0
  until grep -q "server is up" "$work/node.log"; do
    if ! kill -0 "$pid" 2> /dev/null || (( waited++ >= 1200 )); then # exited, or not up within 60 s
      echo "start-cost: the node did not come up:" >&2; cat "$work/node.log" >&2
      kill -9 "$pid" 2> /dev/null || true
      psql -h 127.0.0.1 -U postgres -qc "drop database if exists $db" || true
      exit 1
    fi
    sleep 0.05
  done
  t1=$(date +%s%N)
  c1=$(cpu_ms "$pid")
  sleep 5
  c2=$(cpu_ms "$pid")
  kill -TERM "$pid"
  wait "$pid" || true
  psql -h 127.0.0.1 -U postgres -qc "drop database $db"
  echo "$(( (t1 - t0) / 1000000 )) $c1 $(( c2 - c1 ))"
}

median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }

if [ -n "${JAVA_B:-}" ]; then
  : > "$work/a"; : > "$work/b"
  for i in $(seq "$runs"); do
    java="${JAVA:-java}"; r=$(start); echo "run $i $java: ready ${r%% *} ms, cpu at ready / next 5 s: $(echo "$r" | cut -d' ' -f2,3) ms"
    echo "$r" >> "$work/a"
    java="$JAVA_B"; r=$(start); echo "run $i $java: ready ${r%% *} ms, cpu at ready / next 5 s: $(echo "$r" | cut -d' ' -f2,3) ms"
    echo "$r" >> "$work/b"
  done
  versions=(a b)
else
  echo "training start (writes the archive on exit) …"
  start -XX:ArchiveClassesAtExit="$archive" -Xlog:cds=off -Xlog:cds+dynamic=off > /dev/null
  echo "archive: $(du -m "$archive" | cut -f1) MB"
  : > "$work/none"; : > "$work/cds"
  for i in $(seq "$runs"); do
    r=$(start); echo "run $i without: ready ${r%% *} ms, cpu at ready / next 5 s: $(echo "$r" | cut -d' ' -f2,3) ms"
    echo "$r" >> "$work/none"
    r=$(start -XX:SharedArchiveFile="$archive"); echo "run $i with:    ready ${r%% *} ms, cpu at ready / next 5 s: $(echo "$r" | cut -d' ' -f2,3) ms"
    echo "$r" >> "$work/cds"
  done
  versions=(none cds)
fi
for v in "${versions[@]}"; do
  echo "median $v: ready $(cut -d' ' -f1 "$work/$v" | median) ms, cpu at ready $(cut -d' ' -f2 "$work/$v" | median) ms, next 5 s $(cut -d' ' -f3 "$work/$v" | median) ms"
done
