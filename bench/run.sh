#!/usr/bin/env bash
# Builds what is missing and runs ax-bench scenarios one after another.
#   bench/run.sh                      spread burst submit memory (the defaults)
#   bench/run.sh burst submit         just these
#   bench/run.sh --smoke              the one-minute correctness check (ax one-shot and recurring, then a few hundred
#                                     tasks per peer)
#   bench/run.sh compare              ax vs db-scheduler vs Quartz + pgbench -> results/<date>/compare.md + PNGs
#   bench/run.sh executors            50 000 processor tasks through 2 executor processes over the bridge
#   bench/run.sh recurring            1 000 schedules every second for 10 min: occurrence lateness, missed, doubled,
#                                     CPU per occurrence; then a one-shot spread at the same rate (--minutes, --schedules)
#   bench/run.sh cron-herd            10 000 cron schedules due at the same minute: drain time, lateness; then a one-shot
#                                     burst of the same N
#   bench/run.sh webhooks             a backlog of 20 000 webhooks: delivered/s from the commit to the last one
#   bench/run.sh failover             the first burst after a leader change: leader killed 10 s before 20 000 fall due,
#                                     the standby's drain against the warm leader's
#   bench/run.sh compare -- --workloads recurring   only compare's recurring workload (ax, db-scheduler, Quartz)
#   bench/run.sh spread -- --n 5000   flags after `--` go to every scenario
# Results: bench/results/<yyyy-MM-dd>/report.md (UTC date), server logs in bench/results/<scenario>-server.log
set -euo pipefail

self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$0")"

scenarios=()
flags=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --smoke) scenarios+=(smoke); shift ;;
    --) shift; flags=("$@"); break ;;
    -h|--help) sed -n '2,18p' "$self"; exit 0 ;;
    *) scenarios+=("$1"); shift ;;
  esac
done
if [[ ${#scenarios[@]} -eq 0 ]]; then
  scenarios=(spread burst submit memory)
fi

if [[ ! -f ../target/ax.jar ]]; then
  echo "run.sh: ../target/ax.jar is missing; building the scheduler" >&2
  mvn -B -q -f ../pom.xml package -DskipTests
fi
echo "run.sh: building the bench jar" >&2
mvn -B -q -f pom.xml package

status=0
for s in "${scenarios[@]}"; do
  echo "run.sh: === $s ===" >&2
  # A young generation of 2 GB: the bench's receiver timestamps arrivals, and a collection of its own
  # inside a measured window would read as ax's lateness (the bench collects once before each window).
  if ! java -Xms3g -Xmn2g -Djava.awt.headless=true -jar target/ax-bench.jar "$s" ${flags[@]+"${flags[@]}"}; then
    echo "run.sh: scenario $s FAILED" >&2
    status=1
  fi
done
# --results DIR (after --) moves the reports; say where they went
results="$(pwd)/results"
for ((i = 0; i < ${#flags[@]}; i++)); do
  if [[ "${flags[$i]}" == "--results" && $((i + 1)) -lt ${#flags[@]} ]]; then
    results="${flags[$((i + 1))]}"
    [[ "$results" == /* ]] || results="$(pwd)/$results" # the bench runs in bench/
  fi
done
echo "run.sh: reports in $results/$(date -u +%F)/ (report.md; compare.md for compare)" >&2
exit $status
