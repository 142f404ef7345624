#!/usr/bin/env bash
# Lays out the whole filesystem of ax's container image in one directory, from the JDK 17 this machine
# has, so that the image needs no base image at all (`scratch`):
#
#   /opt/java/                    a Java 17 runtime made by jlink with just the modules ax needs
#   /lib…, /lib64/…               the shared libraries that runtime links against (its ldd closure)
#   /bin/busybox                  static busybox: the health check's wget, and `busybox sh` for debugging
#   /etc/passwd, group            root and the user ax runs as, ax (uid/gid 10001); nsswitch.conf
#   /app/ax.jar                   the scheduler (target/ax.jar)
#   /app/ax-java-executor-example.jar   the Java SDK example executor (examples/java-executor)
#   /tmp                          writable by everyone (the JVM's perf data, `ax dev`'s PostgreSQL)
#
#   scripts/image-root.sh [DIR]   (default target/image-root; after `mvn -B -q install -DskipTests`)
#
# Both image builds use it: scripts/image.sh (Jib, no Docker engine) and docker/Dockerfile (its build
# stage runs this on Debian, then copies DIR into a `scratch` stage), so the two images hold the same files.
# Needs: a JDK 17 with jmods (Debian: openjdk-17-jdk-headless), ldd, /bin/busybox (Debian: busybox-static).
# JAVA_HOME picks the JDK; default: the one `javac` belongs to.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
root=${1:-target/image-root}

log() { printf '[image-root] %s\n' "$*"; }
fail() { log "FAILED: $*"; exit 1; }

# The modules ax.jar uses (`jdeps --multi-release 17 --ignore-missing-deps --print-module-deps
# target/ax.jar`: java.base, java.compiler, java.desktop, java.naming, java.net.http, java.scripting,
# java.security.jgss, java.sql, jdk.jfr, jdk.management, jdk.unsupported), the ones they pull in, and
# what jdeps cannot see because it is loaded by name: jdk.crypto.ec (TLS to HTTPS callbacks and webhooks
# negotiates EC keys), jdk.naming.dns, jdk.zipfs (a zip as a file system).
modules=java.base,java.compiler,java.desktop,java.logging,java.management,java.naming,java.net.http,java.scripting,java.security.jgss,java.sql,java.xml,jdk.crypto.ec,jdk.jfr,jdk.management,jdk.naming.dns,jdk.unsupported,jdk.zipfs

jar=target/ax.jar
example=examples/java-executor/target/ax-java-executor-example.jar
[ -f "$jar" ] || fail "$jar is missing: run mvn -B -q install -DskipTests first"
[ -f "$example" ] || fail "$example is missing: run mvn -B -q install -DskipTests first"
[ -x /bin/busybox ] || fail "/bin/busybox is missing (Debian: apt-get install busybox-static)"
if ldd /bin/busybox >/dev/null 2>&1; then
  fail "/bin/busybox is linked dynamically; the image needs the static one (Debian: apt-get install busybox-static)"
fi

if [ -z "${JAVA_HOME:-}" ]; then
  JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
fi
"$JAVA_HOME/bin/java" -version 2>&1 | grep -q 'version "17' || fail "$JAVA_HOME is not a JDK 17 (set JAVA_HOME)"
[ -d "$JAVA_HOME/jmods" ] || fail "$JAVA_HOME has no jmods/ (Debian: openjdk-17-jdk-headless; elsewhere the JDK's jmods package)"

rm -rf "$root"
mkdir -p "$root"/{app,bin,etc,tmp,opt}

log "jlink: $JAVA_HOME → $root/opt/java"
# --generate-cds-archive: the runtime's own class-data sharing archive (lib/server/classes.jsa, and
# classes_nocoops.jsa for heaps over 32 GB; +22 MB), as a JDK's installation has one. Without it the JVM
# loads and verifies every JDK class from the module image at each start (the image's node was ready 4 %
# later: bench/tools/start-cost.sh with JAVA_B), and it cannot take an archive of ax's own classes at all
# (-XX:ArchiveClassesAtExit needs this base; README "Faster starts and restarts").
"$JAVA_HOME/bin/jlink" --module-path "$JAVA_HOME/jmods" --add-modules "$modules" \
  --strip-debug --no-header-files --no-man-pages --compress=2 --generate-cds-archive --output "$root/opt/java"
# Debian's JDK keeps its CA certificates outside the JDK (lib/security/cacerts is a link to
# /etc/ssl/certs/java/cacerts): jlink then writes none, or an empty store. Take the real one.
for ca in "$JAVA_HOME/lib/security/cacerts" /etc/ssl/certs/java/cacerts; do
  if [ -s "$(readlink -f "$ca")" ]; then
    cp -L "$ca" "$root/opt/java/lib/security/cacerts"
    break
  fi
done
[ -s "$root/opt/java/lib/security/cacerts" ] || fail "no CA certificates for the runtime (Debian: ca-certificates-java)"
# Headless: java.desktop comes for java.beans, not for windows or fonts. Its X11, splash-screen and font
# libraries would pull X11, FreeType, HarfBuzz and GLib into the image; nothing in ax loads them.
rm -f "$root"/opt/java/lib/{libawt_xawt,libjawt,libsplashscreen,libfontmanager}.so

# The shared libraries the runtime needs from outside itself, copied to the paths the dynamic loader
# looks in (the paths ldd reports; links resolved, so each is a plain file). Netty's epoll transport
# ships in ax.jar as a native library, unpacked to /tmp at start: its libraries (librt) count too, or
# the node would fall back to NIO in the image.
natives=$(mktemp -d)
trap 'rm -rf "$natives"' EXIT
(cd "$natives" && "$JAVA_HOME/bin/jar" xf "$repo/$jar" META-INF/native)
libs=$(find "$root/opt/java" "$natives" -type f \( -name '*.so' -o -perm -u+x \) -exec sh -c \
  'for f; do ldd "$f" 2>/dev/null || true; done' sh {} + \
  | awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }' | sort -u)
for lib in $libs; do
  case "$lib" in "$root"/*) continue ;; esac   # the runtime's own (libjli.so, libjvm.so, …)
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
log "shared libraries: $(printf '%s\n' $libs | grep -vc "^$root" || true)"

cp /bin/busybox "$root/bin/busybox"
cp "$jar" "$root/app/ax.jar"
cp "$example" "$root/app/ax-java-executor-example.jar"
cat > "$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
ax:x:10001:10001:ax:/app:/sbin/nologin
EOF
cat > "$root/etc/group" <<'EOF'
root:x:0:
ax:x:10001:
EOF
printf 'hosts: files dns\n' > "$root/etc/nsswitch.conf"
chmod 1777 "$root/tmp"
chmod -R a+rX "$root"

# The runtime must start inside the tree with nothing from the host. Where we may (root, with unshare and
# chroot), run it there as uid 10001, with a /proc of its own (the loader resolves $ORIGIN through it) in
# a private mount namespace, so nothing stays mounted. Inside `docker build` (docker/Dockerfile) there is
# no right to make namespaces: the check is skipped there, and the image is checked where it is run.
if [ "$(id -u)" = 0 ] && command -v chroot >/dev/null 2>&1 \
    && unshare --mount --pid --fork sh -c 'mount -t proc proc /proc' 2>/dev/null; then
  mkdir "$root/proc"
  unshare --mount --pid --fork sh -c 'mount -t proc proc "$1/proc" &&
    chroot --userspec=10001:10001 "$1" /opt/java/bin/java -Xshare:on -jar /app/ax.jar --version' sh "$root" >/dev/null \
    || { rmdir "$root/proc"; fail "java -Xshare:on -jar /app/ax.jar --version does not run inside $root (chroot, uid 10001)"; }
  rmdir "$root/proc"
  log "checked: java -Xshare:on -jar /app/ax.jar --version runs inside the tree as uid 10001 (-Xshare:on: with its archive, or not at all)"
else
  log "not checked inside the tree (needs root, chroot and the right to make mount and pid namespaces)"
fi
log "$root: $(du -sh "$root" | cut -f1) ($(du -sh "$root/opt/java" | cut -f1) of it the Java runtime)"
