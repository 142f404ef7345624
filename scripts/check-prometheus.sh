#!/usr/bin/env bash
# Checks ax's Prometheus side with promtool (Debian package `prometheus`; .ci/run installs it):
#   1. the rule files parse and are valid        promtool check rules docker/prometheus/rules/*.yml
#   2. the scrape config and its rule files      promtool check config docker/prometheus/prometheus.yml
#   3. the rules' unit tests pass                promtool test rules docker/prometheus/tests/*.yml
#   4. the Grafana dashboard's queries parse      (each written into a rule file for promtool check rules)
#   5. a live node's /metrics passes the linter  promtool check metrics (no complaint at all)
# That every ax_ series the rules and the dashboard name is one a node exposes is checked by
# DashboardMetricsTest (mvn verify).
#
#   scripts/check-prometheus.sh        (after `mvn -B -q install -DskipTests`: it starts target/ax.jar)
#
# For 5 it starts `java -jar target/ax.jar server` on free ports against a throwaway database on the
# PostgreSQL at PGHOST:PGPORT as PGUSER (default 127.0.0.1:5432, postgres, trust), submits a few tasks
# (some called successfully, some that fail) so the histograms have samples, waits until their outcomes
# are counted, scrapes /metrics, and stops the node by its PID and drops the database at the end.
# No Prometheus server is started. AX_CHECK_METRICS_OUT=FILE keeps a copy of the scrape.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
work=$(mktemp -d /tmp/ax-check-prometheus.XXXXXX)
db="ax_promcheck_$(date +%s)_$$"
ax_pid=""
receiver_pid=""
db_created=""

log() { printf '[check-prometheus] %s\n' "$*"; }
fail() { log "FAILED: $*"; exit 1; }

cleanup() {
  for pid in $ax_pid $receiver_pid; do
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
  if [ -n "$db_created" ]; then
    psql -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

command -v promtool >/dev/null 2>&1 || fail "promtool is missing (apt-get install prometheus)"
log "$(promtool --version 2>&1 | head -1)"

# ---- 1-3: rules, config, rule tests
promtool check rules docker/prometheus/rules/*.yml
promtool check config docker/prometheus/prometheus.yml
(cd docker/prometheus/tests && promtool test rules ./*.yml)

# ---- 4: the dashboard's PromQL parses ($__rate_interval and other Grafana variables replaced)
python3 - docker/grafana/dashboards/*.json > "$work/dashboard-rules.yml" <<'PY'
import json, re, sys
print("groups:")
for path in sys.argv[1:]:
    print(f"  - name: {json.dumps(path)}\n    rules:")
    def panels(ps):
        for p in ps:
            yield p
            yield from panels(p.get("panels", []))
    n = 0
    for p in panels(json.load(open(path))["panels"]):
        for t in p.get("targets", []):
            expr = re.sub(r"\$__(rate_interval|interval|range)", "5m", t["expr"])
            n += 1
            print(f"      - record: dashboard:query:{n}\n        expr: {json.dumps(expr)}")
PY
promtool check rules "$work/dashboard-rules.yml" | sed 's/^/  dashboard: /'

# ---- 5: a live node's /metrics
[ -f target/ax.jar ] || fail "target/ax.jar is missing: run mvn -B -q install -DskipTests first"
psql -q -d postgres -c "CREATE DATABASE $db" >/dev/null || fail "cannot create database $db on $PGHOST:$PGPORT"
db_created=1

http_port=$(free_port)
bridge_port=$(free_port)
receiver_port=$(free_port)
closed_port=$(free_port) # nothing listens there: calls to it fail (connection refused)
python3 scripts/receiver.py "$receiver_port" > "$work/receiver.log" 2>&1 &
receiver_pid=$!

key=check-key
secret=check-secret-0123456789
AX_PG_URL="postgresql://$PGUSER@$PGHOST:$PGPORT/$db" AX_HTTP_PORT=$http_port AX_BRIDGE_PORT=$bridge_port \
  AX_BRIDGE_HOST=127.0.0.1 AX_BOOTSTRAP_KEY="$key:$secret:check" AX_CALLBACK_ALLOWLIST=127.0.0.1 \
  AX_NODE_ID=promcheck java -Xmx256m -jar target/ax.jar server > "$work/ax.log" 2>&1 &
ax_pid=$!
base="http://127.0.0.1:$http_port"
for _ in $(seq 1 90); do
  curl -sf "$base/health/ready" >/dev/null 2>&1 && break
  kill -0 "$ax_pid" 2>/dev/null || { cat "$work/ax.log"; fail "the node exited during start"; }
  sleep 1
done
curl -sf "$base/health/ready" >/dev/null || { tail -50 "$work/ax.log"; fail "the node did not become ready in 90 s"; }
for _ in $(seq 1 60); do # the leader lease: a fresh database has none, so this takes a moment at most
  curl -s "$base/health" | grep -q '"role":"leader"' && break
  sleep 1
done

# 4 calls that succeed, 2 that fail for good (max_retry 0), 1 that fails and is retried
ok() { printf '{"task_type":"check.ok","delay_ms":%d,"callback_url":"http://127.0.0.1:%d/ok","payload":{},"dedupe":false}' "$1" "$receiver_port"; }
bad() { printf '{"task_type":"check.bad","delay_ms":%d,"max_retry":%d,"callback_url":"http://127.0.0.1:%d/x","payload":{},"dedupe":false}' "$1" "$2" "$closed_port"; }
body="{\"tasks\":[$(ok 0),$(ok 100),$(ok 500),$(ok 1200),$(bad 0 0),$(bad 300 0),$(bad 0 1)]}"
java -jar target/ax.jar sign --key "$key" --secret "$secret" --method POST --path /openapi/v1/tasks/batch \
  --body "$body" > "$work/headers.txt"
code=$(curl -s -o "$work/created.json" -w '%{http_code}' -X POST "$base/openapi/v1/tasks/batch" \
  -H @"$work/headers.txt" -H 'content-type: application/json' -d "$body")
[ "$code" = 200 ] || [ "$code" = 201 ] || [ "$code" = 207 ] || { cat "$work/created.json"; fail "batch submit answered $code"; }

metric() { # value of one exact series line, 0 when absent
  awk -v s="$1" 'index($0, s " ") == 1 { print $2; found = 1 } END { if (!found) print 0 }' "$work/metrics.txt"
}
for _ in $(seq 1 60); do
  curl -s "$base/metrics" > "$work/metrics.txt"
  successes=$(metric 'ax_execute_total{outcome="success",target="http"}')
  failures=$(metric 'ax_execute_total{outcome="failure",target="http"}')
  if awk -v s="$successes" -v f="$failures" 'BEGIN { exit !(s >= 4 && f >= 3) }'; then
    break
  fi
  sleep 1
done
awk -v s="$successes" -v f="$failures" 'BEGIN { exit !(s >= 4 && f >= 3) }' \
  || { tail -30 "$work/ax.log"; fail "outcomes not counted within 60 s (success $successes, failure $failures)"; }
grep -q '^ax_schedule_delay_seconds_count{target="http"} [1-9]' "$work/metrics.txt" \
  || fail "ax_schedule_delay_seconds has no samples"
log "live node: $(grep -c '^# TYPE' "$work/metrics.txt") metric families, $successes successes, $failures failures"
[ -z "${AX_CHECK_METRICS_OUT:-}" ] || cp "$work/metrics.txt" "$AX_CHECK_METRICS_OUT"

lint=$(promtool check metrics < "$work/metrics.txt" 2>&1) && rc=0 || rc=$?
if [ "$rc" -ne 0 ] || [ -n "$lint" ]; then
  printf '%s\n' "$lint"
  fail "promtool check metrics complained (exit $rc)"
fi
log "promtool check metrics: no complaint"
log "passed"
