# Quipu's image, built from its npm package and nothing else: the build context holds one file,
# `npm pack`'s quipu-<version>.tgz (.dockerignore lets nothing else in), so the image runs exactly
# what `npm install quipu-<version>.tgz` runs. From a checkout: `npm pack && docker build -t quipu .`
# (docs/containers.md); compose.yaml runs an installation of it on PostgreSQL.
#
# Reproducible: the bases are pinned by digest (bump them deliberately, both at once), the
# dependencies are the ones the package's own lockfile (npm-shrinkwrap.json) pins, installed by
# `npm ci`, and with the timestamp of the build given (docker: SOURCE_DATE_EPOCH with
# rewrite-timestamp; podman: --timestamp) two builds of one tarball have the same layers and
# configuration (scripts/container-smoke.sh checks it). Its SBOM is written beside it from the
# same lockfile (scripts/package-sbom.mjs).
#
# Both stages must share a C library: better-sqlite3 is a native addon compiled (or fetched
# prebuilt) in the build stage against its glibc and copied as it is into the runtime stage. The
# defaults are the official Node.js 20 images of Debian bookworm; any other pair with the same
# Debian release and Node.js 20.18+ at /usr/local/bin/node (and npm in the build image) will do
# (scripts/container-base.sh makes such a pair where no image registry can be reached).
ARG BUILD_IMAGE=node:20-bookworm@sha256:8f693eaa7e0a8e71560c9a82b55fd54c2ae920a2ba5d2cde28bac7d1c01c9ba5
ARG RUNTIME_IMAGE=node:20-bookworm-slim@sha256:2cf067cfed83d5ea958367df9f966191a942351a2df77d6f0193e162b5febfc0

FROM ${BUILD_IMAGE} AS build
WORKDIR /app
COPY quipu-*.tgz /tmp/package/
# The package's files (bin/, dist/, ci/, package.json, npm-shrinkwrap.json) as /app, then its
# production dependencies as its lockfile pins them. Install scripts are skipped (the package's
# own `prepare` builds from sources it does not ship) but better-sqlite3's, which fetches or
# compiles the addon; of what compiling it leaves, only the addon is kept (SQLite's sources and
# the object files are 17 MB).
RUN set -eu; \
    set -- /tmp/package/quipu-*.tgz; \
    [ "$#" = 1 ] || { echo "the build context must hold one quipu-*.tgz, not: $*" >&2; exit 1; }; \
    tar -xzf "$1" --strip-components=1 -C /app; \
    npm ci --omit=dev --ignore-scripts --no-audit --no-fund; \
    npm rebuild better-sqlite3; \
    cd /app/node_modules/better-sqlite3; \
    mv build/Release/better_sqlite3.node /tmp/; \
    rm -rf build deps src /app/node_modules/.package-lock.json; \
    mkdir -p build/Release; \
    mv /tmp/better_sqlite3.node build/Release/

FROM ${RUNTIME_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/var/lib/quipu \
    MALLOC_ARENA_MAX=2
RUN groupadd --gid 10001 quipu \
 && useradd --uid 10001 --gid quipu --no-log-init --home-dir /var/lib/quipu --create-home --shell /usr/sbin/nologin quipu
WORKDIR /app
COPY --from=build /app /app
USER quipu
EXPOSE 3000
# Everything Quipu keeps on its embedded database: the SQLite file, its encryption key (unless
# QUIPU_ENCRYPTION_KEY_FILE names another), the outbox's email inbox. Without a volume of its own,
# each container starts empty.
VOLUME ["/var/lib/quipu"]
# Ready, not only alive: /readyz answers 503 while the server drains on SIGTERM (SHUTDOWN_DRAIN_MS)
# and while its database cannot be reached. `quipu worker` and `quipu migrate` have no listener:
# compose.yaml turns the check off for them.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/quipu.js"]
CMD ["serve"]
