#!/usr/bin/env bash
# Runs README.md's "Run it" recipe exactly as written — the ```bash blocks between the
# <!-- readme-test:start --> and <!-- readme-test:end --> markers — on a fresh clone of this
# repository's HEAD, so a newcomer's first five minutes cannot silently break. CI runs it (.ci/run).
#
#   scripts/readme-test.sh          (commit first: uncommitted changes are not in the clone)
#
# The recipe runs in a process group of its own; whatever it leaves running is stopped at the end.
# Ports: AX_HTTP_PORT and AX_BRIDGE_PORT are set to free ports (the recipe honours AX_HTTP_PORT);
# the recipe's receiver port 9099 must be free.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/ax-readme-test.XXXXXX)
group=""

log() { printf '[readme-test] %s\n' "$*"; }

cleanup() {
  if [ -n "$group" ] && kill -0 -- "-$group" 2>/dev/null; then
    kill -- "-$group" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 -- "-$group" 2>/dev/null || break; sleep 1; done
    kill -9 -- "-$group" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port_busy() {
  python3 -c 'import socket, sys; s = socket.socket(); sys.exit(s.connect_ex(("127.0.0.1", int(sys.argv[1]))) != 0)' "$1"
}

git clone -q "$repo" "$work/ax"
cd "$work/ax"
recipe=$(awk '/<!-- readme-test:start -->/ {on = 1; next} /<!-- readme-test:end -->/ {on = 0} on' README.md \
  | awk '/^```bash/ {code = 1; next} /^```/ {code = 0; next} code')
if [ -z "$recipe" ]; then
  log "README.md has no recipe between the readme-test markers"; exit 1
fi
if port_busy 9099; then
  log "port 9099 (the recipe's receiver) is in use; free it first"; exit 1
fi
AX_HTTP_PORT=$(free_port)
AX_BRIDGE_PORT=$(free_port)
export AX_HTTP_PORT AX_BRIDGE_PORT
log "running $(printf '%s\n' "$recipe" | grep -c .) lines of README.md in $work/ax (HTTP port $AX_HTTP_PORT)"

start=$(date +%s)
setsid bash -c "set -euo pipefail -x; $recipe" > "$work/recipe.log" 2>&1 &
group=$!
rc=0
# A generous bound: a cold Maven build (~1 min here) plus the embedded PostgreSQL's first start.
for _ in $(seq 1 300); do kill -0 "$group" 2>/dev/null || break; sleep 1; done
if kill -0 "$group" 2>/dev/null; then
  log "the recipe did not finish within 300 s"; rc=1
else
  wait "$group" || rc=$?
fi
took=$(( $(date +%s) - start ))
if [ "$rc" -ne 0 ]; then
  log "FAILED (exit $rc after ${took} s); the recipe's output:"
  cat "$work/recipe.log"
  for f in ax-dev.log receiver.log task.json; do
    [ -f "$f" ] && { echo "--- $f"; tail -50 "$f"; }
  done
  exit 1
fi
grep -q '"status":"SUCCESS"' task.json
log "passed in ${took} s (build, dev start, first task SUCCESS): $(cat task.json | head -c 300)"
