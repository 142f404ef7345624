#!/usr/bin/env bash
# A cluster of ax on one machine, without Docker: three scheduler nodes and two executors (the Java SDK
# example and the Python example) as processes, against the local PostgreSQL and Redis.
#
#   scripts/cluster.sh up        starts them (after `mvn -B -q install -DskipTests`), waits until every
#                                node is healthy, one leads and both executors registered; prints ports and logs
#   scripts/cluster.sh status    each process, each node's /health (role, epoch); exit 0 when all run and
#                                exactly one node leads
#   scripts/cluster.sh down      stops exactly the processes `up` started (their PIDs are in the state
#                                directory): executors first (they drain), then the nodes (the leader hands over)
#
# Where things are:
#   state directory   target/cluster/ (CLUSTER_DIR): one NAME.pid and NAME.log per process, cluster.env
#                     (the ports and the API key), jwt-secret (mode 600, made once, kept across up/down)
#   PostgreSQL        PGHOST:PGPORT as PGUSER (default 127.0.0.1:5432, postgres, trust); database
#                     CLUSTER_DB (default ax_cluster), created when missing and kept by `down`
#   Redis             REDIS_URL (default redis://127.0.0.1:6379)
#   ports             node i (1..3): HTTP 8079+i, bridge 6999+i, Hazelcast 5700+i, all plus CLUSTER_PORT_OFFSET
#                     (default 0; e.g. CLUSTER_PORT_OFFSET=20000 → HTTP 28080-28082)
#   API key           demo-key / demo-secret-change-me, tenant demo; callbacks allowed to 127.0.0.1, localhost
#
# The nodes find each other by Hazelcast TCP join to the listed members (AX_CLUSTER_MEMBERS, the same on
# each, a distinct AX_CLUSTER_PORT per node), as in the README's "Cluster and executors".
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

state=${CLUSTER_DIR:-target/cluster}
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
db=${CLUSTER_DB:-ax_cluster}
redis_url=${REDIS_URL:-redis://127.0.0.1:6379}
offset=${CLUSTER_PORT_OFFSET:-0}
key=demo-key
secret=demo-secret-change-me
nodes=(node-1 node-2 node-3)
executors=(java-executor python-executor)

log() { printf '[cluster] %s\n' "$*"; }
fail() { log "FAILED: $*"; exit 1; }

http_port() { echo $((8079 + $1 + offset)); }
bridge_port() { echo $((6999 + $1 + offset)); }
cluster_port() { echo $((5700 + $1 + offset)); }

# The PID in NAME.pid if that process is still the one we started (its command line names our jar or
# script, so a PID reused by another process is never signalled); empty otherwise.
pid_of() {
  local f="$state/$1.pid" pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null \
      | grep -q -e 'ax.jar' -e 'ax-java-executor-example.jar' -e 'ax_executor.py'; then
    echo "$pid"
  fi
}

port_busy() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

health() { curl -s --max-time 2 "http://127.0.0.1:$1/health" || true; }

field() { # field NAME JSON: a top-level string or number of a small JSON object
  sed -nE "s/.*\"$1\":\"?([^\",}]*)\"?.*/\1/p" <<< "$2" | head -1
}

up() {
  [ -f target/ax.jar ] || fail "target/ax.jar is missing: run mvn -B -q install -DskipTests first"
  local example=examples/java-executor/target/ax-java-executor-example.jar
  [ -f "$example" ] || fail "$example is missing: run mvn -B -q install -DskipTests first"
  mkdir -p "$state"
  for n in "${nodes[@]}" "${executors[@]}"; do
    [ -z "$(pid_of "$n")" ] || fail "$n already runs (PID $(pid_of "$n")): scripts/cluster.sh status, or down first"
  done
  for i in 1 2 3; do
    for p in "$(http_port $i)" "$(bridge_port $i)" "$(cluster_port $i)"; do
      port_busy "$p" && fail "port $p is in use; choose others with CLUSTER_PORT_OFFSET=N (all ports + N)"
    done
  done

  pg_isready -q || fail "PostgreSQL at $PGHOST:$PGPORT is not ready"
  if [ "$(psql -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'")" != 1 ]; then
    createdb "$db"
    log "created database $db"
  fi
  local rhost rport
  rhost=$(sed -E 's#redis://([^:/]+).*#\1#' <<< "$redis_url")
  rport=$(sed -nE 's#redis://[^:/]+:([0-9]+).*#\1#p' <<< "$redis_url")
  port_busy "${rport:-6379}" || [ "$rhost" != 127.0.0.1 ] || fail "nothing listens at $redis_url"

  if [ ! -s "$state/jwt-secret" ]; then
    (umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$state/jwt-secret")
  fi
  local jwt members="" servers=""
  jwt=$(cat "$state/jwt-secret")
  for i in 1 2 3; do
    members+="${members:+,}127.0.0.1:$(cluster_port $i)"
    servers+="${servers:+,}127.0.0.1:$(bridge_port $i)"
  done

  start_node() { # i
    local i=$1 name=node-$1
    AX_PG_URL="postgresql://$PGUSER@$PGHOST:$PGPORT/$db" AX_REDIS_URL="$redis_url" \
    AX_NODE_ID="$name" AX_HTTP_PORT="$(http_port "$i")" AX_BRIDGE_PORT="$(bridge_port "$i")" AX_BRIDGE_HOST=127.0.0.1 \
    AX_CLUSTER_MEMBERS="$members" AX_CLUSTER_PORT="$(cluster_port "$i")" AX_CLUSTER_HOST=127.0.0.1 \
    AX_EXECUTOR_JWT_SECRET="$jwt" AX_BOOTSTRAP_KEY="$key:$secret:demo" AX_CALLBACK_ALLOWLIST=127.0.0.1,localhost \
      nohup java -Xmx384m -jar target/ax.jar server > "$state/$name.log" 2>&1 &
    echo $! > "$state/$name.pid"
    log "$name: PID $!, HTTP $(http_port "$i"), bridge $(bridge_port "$i"), cluster $(cluster_port "$i"), log $state/$name.log"
  }
  await_healthy() { # i
    local i=$1 name=node-$1
    for _ in $(seq 1 120); do
      curl -sf --max-time 2 "http://127.0.0.1:$(http_port "$i")/health" > /dev/null && return 0
      [ -n "$(pid_of "$name")" ] || { tail -30 "$state/$name.log"; fail "$name exited during start"; }
      sleep 1
    done
    tail -30 "$state/$name.log"; fail "$name was not healthy within 120 s"
  }
  # The first node alone (it runs the migrations on an empty database), then the other two together.
  start_node 1
  await_healthy 1
  start_node 2
  start_node 3
  await_healthy 2
  await_healthy 3

  local token
  token() { AX_EXECUTOR_JWT_SECRET="$jwt" java -jar target/ax.jar executor-token --executor-id "$1" | tail -1; }
  token=$(token java-executor-1)
  AX_SERVERS="$servers" AX_EXECUTOR_TOKEN="$token" \
    nohup java -Xmx128m -jar "$example" > "$state/java-executor.log" 2>&1 &
  echo $! > "$state/java-executor.pid"
  log "java-executor: PID $!, id java-executor-1, processors invoice.total, invoice.archive, log $state/java-executor.log"
  token=$(token python-executor-1)
  nohup python3 -u examples/python-executor/ax_executor.py --servers "$servers" --token "$token" \
    --processors echo,noop,fail > "$state/python-executor.log" 2>&1 &
  echo $! > "$state/python-executor.pid"
  log "python-executor: PID $!, id python-executor-1, processors echo, noop, fail, log $state/python-executor.log"
  for e in "${executors[@]}"; do
    for _ in $(seq 1 60); do
      grep -q registered "$state/$e.log" && break
      [ -n "$(pid_of "$e")" ] || { cat "$state/$e.log"; fail "$e exited"; }
      sleep 1
    done
    grep -q registered "$state/$e.log" || { cat "$state/$e.log"; fail "$e did not register within 60 s"; }
  done

  cat > "$state/cluster.env" <<EOF
# written by scripts/cluster.sh up; source it for the ports and the API key
HTTP_PORTS="$(http_port 1) $(http_port 2) $(http_port 3)"
BRIDGE_SERVERS=$servers
CLUSTER_MEMBERS=$members
PG_URL=postgresql://$PGUSER@$PGHOST:$PGPORT/$db
KEY=$key
SECRET=$secret
EOF
  for _ in $(seq 1 60); do
    [ "$(leaders)" = 1 ] && break
    sleep 1
  done
  status
}

leaders() {
  local n=0
  for i in 1 2 3; do
    [ "$(field role "$(health "$(http_port $i)")")" = leader ] && n=$((n + 1))
  done
  echo "$n"
}

status() {
  local rc=0 pid h
  for i in 1 2 3; do
    pid=$(pid_of "node-$i")
    h=$(health "$(http_port $i)")
    if [ -z "$pid" ]; then
      log "node-$i: not running"; rc=1
    elif [ -z "$h" ]; then
      log "node-$i: PID $pid, no answer on HTTP $(http_port $i)"; rc=1
    else
      log "node-$i: PID $pid, HTTP $(http_port $i), bridge $(bridge_port $i), $(field status "$h"), role $(field role "$h"), epoch $(field epoch "$h")"
    fi
  done
  for e in "${executors[@]}"; do
    pid=$(pid_of "$e")
    if [ -n "$pid" ]; then log "$e: PID $pid, log $state/$e.log"; else log "$e: not running"; rc=1; fi
  done
  local l
  l=$(leaders)
  log "leaders: $l (expected 1)"
  [ "$l" = 1 ] || rc=1
  return "$rc"
}

down() {
  local pid stopped=0
  # executors first (SIGTERM drains them: no new work, results reported), then the nodes (SIGTERM hands
  # the lease over); SIGKILL after 30 s.
  for n in "${executors[@]}" node-3 node-2 node-1; do
    pid=$(pid_of "$n")
    if [ -n "$pid" ]; then
      kill "$pid"
      for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      if kill -0 "$pid" 2>/dev/null; then
        log "$n (PID $pid) did not stop within 30 s: SIGKILL"
        kill -9 "$pid" 2>/dev/null || true
      fi
      log "$n: stopped (PID $pid)"
      stopped=$((stopped + 1))
    fi
    rm -f "$state/$n.pid"
  done
  log "stopped $stopped processes; logs stay in $state, the database $db stays (dropdb $db to remove it)"
}

case "${1:-}" in
  up) up ;;
  status) status ;;
  down) down ;;
  *) echo "usage: scripts/cluster.sh up|status|down" >&2; exit 2 ;;
esac
