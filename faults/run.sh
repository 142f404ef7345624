#!/usr/bin/env bash
# The fault matrix (RELIABILITY.md) as one runnable suite: runs the fault ITs against real processes
# (ax nodes from target/ax.jar, executors, PostgreSQL, Redis, receivers) through failsafe, each recording
# what it measured (FaultRow → -Dax.faults.out), then writes faults/results/<UTC date>/report.md with one
# row per matrix row and the one-line summary. See faults/README.md.
#
#   faults/run.sh [--quick|--full] [--no-build] [--no-cds]
#
# --quick (default): a subset covering 24 rows, about 8-10 minutes on a 2-core machine.
# --full: every test that records a row, at the matrix's scale (100 election starts, 2 000 hostile
#   connections of each kind): about 47 min on a 2-core machine, 31 of them the election race.
# Nodes start with a class-data sharing archive made for the jar first (scripts/cds-archive.sh, ~9 s; the
# README's advice for faster starts): three JVMs launched together on two cores are ready ~20 % sooner.
# --no-cds starts them without it.
# Exit status: 0 when every row that ran passed, 1 when a row failed, 2 on a usage or build error.
set -uo pipefail
cd "$(dirname "$0")/.."

mode=quick
build=auto
cds=yes
for arg in "$@"; do
  case "$arg" in
    --quick) mode=quick ;;
    --full) mode=full ;;
    --no-build) build=no ;;
    --no-cds) cds=no ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "usage: faults/run.sh [--quick|--full] [--no-build] [--no-cds]" >&2; exit 2 ;;
  esac
done

log() { printf '[faults] %s\n' "$*"; }

# Quick: the rows' cheapest tests (whole classes where they are short, single methods where not).
quick_tests=(
  SchedulingIT
  'ClusterFailoverIT'
  'ExecutorIT#anExecutorKilledMidTaskIsDeclaredOfflineAndItsTaskSucceedsOnceElsewhere+aPausedExecutorsLateResultIsRefusedAndItsHeartbeatSendsItToRegisterAgain'
  CrashRecoveryIT
  DatabaseStopIT
  RedisStopIT
  WebhookIT
  BridgeSecurityIT
  'HostileRequestsIT#aReplayAfterTheNodeRestartsIsRefused'
  CancelRaceIT
  BizKeyRaceIT
  SsrfIT
  ClockJumpIT
  StuckRowsIT
  LongTaskIT
  ElectionRaceIT
  DoubleDeliveryIT
  HerdIT
)
quick_props=(-Dax.faults.cancels=1000 -Dax.faults.bizkey=10000 -Dax.faults.starts=3)
# Full: everything that records a row, at the matrix's sizes.
full_tests=(
  "${quick_tests[@]}"
  BaselineIT
  DatabaseOutageIT
  ScheduleFailoverIT
  RollingRestartIT
  'HostileConnectionsIT#hostileConnectionsOfEachKindCostBoundedHeapAndLeaveTheApiFast'
  ApiFuzzIT
  'DedupeIT#sixteenClientsRacingOnTwoNodesCreateOneTaskPerPayload'
  ClockSkewIT
)
# restartNice: RollingRestartIT's restarted nodes start under `nice -n 10`, nearest to having their own host
# (faults/README.md, "The rolling restart's niceness").
full_props=(-Dax.faults.cancels=1000 -Dax.faults.bizkey=10000 -Dax.faults.starts=100 -Dax.faults.connections=2000
  -Dax.faults.restartNice=10)

if [ "$mode" = quick ]; then
  tests=("${quick_tests[@]}"); props=("${quick_props[@]}")
else
  tests=("${full_tests[@]}"); props=("${full_props[@]}")
fi
# HostileRequestsIT appears as one method in quick and whole in full: keep the whole class in full.
if [ "$mode" = full ]; then
  for i in "${!tests[@]}"; do
    [ "${tests[$i]}" = 'HostileRequestsIT#aReplayAfterTheNodeRestartsIsRefused' ] && tests[$i]=HostileRequestsIT
    [[ "${tests[$i]}" == ExecutorIT#* ]] && tests[$i]=ExecutorIT
  done
fi
it_test=$(IFS=,; echo "${tests[*]}")

# The machine is shared: heavy commands wait while /tmp/ax-quiet exists — at most 30 minutes, then they
# run anyway (a marker left behind by a crashed benchmark must not stall the suite, or CI, forever).
quiet() {
  local waited=0
  while [ -e /tmp/ax-quiet ]; do
    if [ "$waited" -ge 1800 ]; then
      log "/tmp/ax-quiet still exists after 30 min of waiting; going on"
      return 0
    fi
    [ "$waited" -eq 0 ] && log "waiting while /tmp/ax-quiet exists (at most 30 min)"
    sleep 20
    waited=$((waited + 20))
  done
}

jar=target/ax.jar
example=examples/java-executor/target/ax-java-executor-example.jar
if [ "$build" = auto ]; then
  stale=""
  if [ ! -f "$jar" ] || [ ! -f "$example" ]; then
    stale="jar missing"
  elif [ -n "$(find src/main sdk/src examples/java-executor/src pom.xml server-pom.xml sdk/pom.xml -newer "$jar" \
        -type f -print -quit 2>/dev/null)" ]; then
    stale="sources newer than $jar"
  fi
  if [ -n "$stale" ]; then
    log "building ($stale)"
    quiet
    mvn -B -q install -DskipTests || { log "build failed"; exit 2; }
    mvn -B -q -f server-pom.xml package -DskipTests || { log "build failed"; exit 2; }
  fi
fi
[ -f "$jar" ] || { log "$jar is missing"; exit 2; }

stamp=$(date -u +%Y-%m-%dT%H%MZ)
out="faults/results/$(date -u +%Y-%m-%d)"
if [ -e "$out/report.md" ]; then
  out="faults/results/$stamp"  # a second run the same day keeps the first
fi
mkdir -p "$out"
records="$PWD/$out/records.jsonl"
: > "$records"
rm -rf target/failsafe-reports

log "mode $mode: ${#tests[@]} test classes/methods; records → $out/records.jsonl"
quiet
started=$(date +%s)  # the archive's making counts in the suite's time
node_flags=()
started_with="without a class-data sharing archive"
if [ "$cds" = yes ]; then
  archive="$PWD/target/ax-faults.jsa"
  if scripts/cds-archive.sh "$archive" "$jar" > "$out/cds-archive.log" 2>&1; then
    node_flags=("-Dax.nodeJvmFlags=-XX:SharedArchiveFile=$archive -Xlog:cds=off -Xlog:cds+dynamic=off")
    started_with="with a class-data sharing archive made for the jar ($(( $(date +%s) - started )) s)"
  else
    log "making the class-data sharing archive failed (see $out/cds-archive.log); nodes start without one"
  fi
fi
log "nodes start $started_with"
mvn -B -f server-pom.xml test-compile failsafe:integration-test failsafe:verify \
  -Dit.test="$it_test" -Dfailsafe.failIfNoSpecifiedTests=false -Dax.faults.out="$records" "${props[@]}" \
  "${node_flags[@]}" > "$out/maven.log" 2>&1
mvn_rc=$?
duration=$(( $(date +%s) - started ))
log "archive and failsafe finished in $((duration / 60)) min $((duration % 60)) s (maven exit $mvn_rc)"
grep -E 'Tests run:|FAIL|ERROR\]' "$out/maven.log" | grep -v '^\[INFO\] *$' | tail -n 25 || true
# the full maven log is large (node logs of failed tests); keep its tail only
tail -n 400 "$out/maven.log" > "$out/maven-tail.log" && rm -f "$out/maven.log"

python3 faults/report.py faults/rows.tsv "$records" target/failsafe-reports "$mode" "$duration" "$out/report.md" \
  "nodes started $started_with"
report_rc=$?
log "report: $out/report.md"
if [ "$report_rc" -ne 0 ] || [ "$mvn_rc" -ne 0 ]; then
  exit 1
fi
exit 0
