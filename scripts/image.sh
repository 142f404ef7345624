#!/usr/bin/env bash
# Builds ax's container image without a Docker engine, as a tarball: target/jib-image.tar (Docker's
# `docker load` format; `scripts/image.sh -Dax.image.format=OCI` writes an OCI image layout instead).
#
#   scripts/image.sh            (after `mvn -B -q install -DskipTests`, which makes target/ax.jar and the
#                                example executor's jar)
#   docker load -i target/jib-image.tar      → ax:0.1.0-SNAPSHOT and ax:latest
#
# 1. scripts/image-root.sh lays out the image's whole filesystem in target/image-root (a jlinked Java 17
#    runtime and its libraries, busybox, /etc/passwd, the jars) and runs the runtime there once (chroot).
# 2. Jib (docker/jib-pom.xml) packs that tree on the `scratch` base with the entrypoint, user, ports and
#    labels, and writes the tarball. No registry and no engine are involved.
# Then `mvn -f server-pom.xml surefire:test -Dtest=ImageConfigTest -Dax.image.tar=target/jib-image.tar`
# checks the tarball's config (.ci/run does).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

log() { printf '[image] %s\n' "$*"; }

start=$(date +%s)
scripts/image-root.sh target/image-root

case "$(uname -m)" in
  x86_64 | amd64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) log "unsupported processor $(uname -m)"; exit 1 ;;
esac
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
rm -f target/jib-image.tar
# Jib reads the project's classes directory even when, as here, the project has no classes.
mkdir -p target/jib/classes
mvn -B -q -f docker/jib-pom.xml jib:buildTar -Dax.image.arch="$arch" -Dax.image.revision="$revision" \
  -Djib.disableUpdateChecks=true "$@"
[ -s target/jib-image.tar ] || { log "FAILED: Jib wrote no target/jib-image.tar"; exit 1; }
log "target/jib-image.tar: $(du -h target/jib-image.tar | cut -f1), image $(cat target/jib-image.id 2>/dev/null), \
linux/$arch, revision $revision, in $(( $(date +%s) - start )) s"
