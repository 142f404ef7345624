#!/usr/bin/env bash
# Writes docker/.env for docker/compose.yaml: docker/.env.example with every secret replaced by a fresh
# random one and the two executor tokens minted with the new AX_EXECUTOR_JWT_SECRET (365 days, the most
# the bridge accepts). docker/.env is gitignored; this script never overwrites one (--force does).
#
#   scripts/compose-env.sh [--force]
#
# The tokens are minted by `ax executor-token`: with target/ax.jar when it exists, else with the image
# ($IMAGE, default ax:latest) through `docker run`. Prints what it wrote, secrets masked.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
out=docker/.env

log() { printf '[compose-env] %s\n' "$*"; }

if [ -e "$out" ] && [ "${1:-}" != "--force" ]; then
  log "$out exists; keeping it (--force writes a new one, with new secrets and tokens)"
  exit 0
fi

random() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }

jwt_secret=$(random 32)
image=${IMAGE:-ax:latest}
token() {
  if [ -f target/ax.jar ]; then
    AX_EXECUTOR_JWT_SECRET=$jwt_secret java -jar target/ax.jar executor-token --executor-id "$1" --ttl-days 365
  else
    AX_EXECUTOR_JWT_SECRET=$jwt_secret docker run --rm -e AX_EXECUTOR_JWT_SECRET "$image" \
      executor-token --executor-id "$1" --ttl-days 365
  fi | tail -1
}
java_token=$(token java-executor-1)
python_token=$(token python-executor-1)

sed -e "s|^IMAGE=.*|IMAGE=$image|" \
    -e "s|^POSTGRES_PASSWORD=.*|POSTGRES_PASSWORD=$(random 16)|" \
    -e "s|^AX_EXECUTOR_JWT_SECRET=.*|AX_EXECUTOR_JWT_SECRET=$jwt_secret|" \
    -e "s|^AX_BOOTSTRAP_KEY=.*|AX_BOOTSTRAP_KEY=demo-key:$(random 16):demo|" \
    -e "s|^AX_MASTER_KEY=.*|AX_MASTER_KEY=$(head -c 32 /dev/urandom | base64)|" \
    -e "s|^AX_ADMIN_JWT_SECRET=.*|AX_ADMIN_JWT_SECRET=$(random 32)|" \
    -e "s|^JAVA_EXECUTOR_TOKEN=.*|JAVA_EXECUTOR_TOKEN=$java_token|" \
    -e "s|^PYTHON_EXECUTOR_TOKEN=.*|PYTHON_EXECUTOR_TOKEN=$python_token|" \
    -e "s|^GRAFANA_ADMIN_PASSWORD=.*|GRAFANA_ADMIN_PASSWORD=$(random 12)|" \
    docker/.env.example > "$out.tmp"
chmod 600 "$out.tmp"
mv "$out.tmp" "$out"
log "wrote $out (mode 600):"
grep -v '^#' "$out" | grep . | sed -E 's/^((POSTGRES_PASSWORD|AX_EXECUTOR_JWT_SECRET|AX_MASTER_KEY|AX_ADMIN_JWT_SECRET|GRAFANA_ADMIN_PASSWORD|[A-Z]+_EXECUTOR_TOKEN)=.{4}).*/\1…/; s/^(AX_BOOTSTRAP_KEY=[^:]*:.{4})[^:]*/\1…/' \
  | sed 's/^/  /'
log "the API key is in AX_BOOTSTRAP_KEY (access-key:secret:tenant); Grafana: admin / GRAFANA_ADMIN_PASSWORD"
