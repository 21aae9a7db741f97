# Quipu's image: the compiled service (dist/, bin/) and its production dependencies, run by a user
# without privileges. docs/containers.md tells how to build and run it; compose.yaml runs an
# installation of it on PostgreSQL.
#
# Both stages must share a C library: better-sqlite3 is a native addon compiled (or fetched
# prebuilt) in the build stage against its glibc and copied as it is into the runtime stage. The
# defaults are the official Node.js images of Debian bookworm; any other pair of images with the
# same Debian release and Node.js 20.18+ (/usr/local/bin/node, npm in the build image) will do.
ARG BUILD_IMAGE=node:20-bookworm
ARG RUNTIME_IMAGE=node:20-bookworm-slim

FROM ${BUILD_IMAGE} AS build
WORKDIR /app
# The dependencies first, in a layer of their own that a change to the sources does not rebuild.
# Their install scripts are skipped but for better-sqlite3's, which fetches or compiles the addon:
# `npm ci`'s own `prepare` (the build) needs the sources, copied below.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund && npm rebuild better-sqlite3
COPY tsconfig.json ./
COPY scripts/build.js scripts/
COPY bin bin
COPY src src
# `npm run build` is what `npm ci` runs as `prepare`; then the development dependencies (esbuild,
# the test tools) are dropped from node_modules, which the runtime stage copies.
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM ${RUNTIME_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/var/lib/quipu \
    MALLOC_ARENA_MAX=2
RUN groupadd --gid 10001 quipu \
 && useradd --uid 10001 --gid quipu --no-log-init --home-dir /var/lib/quipu --create-home --shell /usr/sbin/nologin quipu
WORKDIR /app
COPY --from=build /app/package.json package.json
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/bin bin
COPY --from=build /app/dist dist
USER quipu
EXPOSE 3000
# Ready, not only alive: /readyz answers 503 while the server drains on SIGTERM (SHUTDOWN_DRAIN_MS)
# and while its database cannot be reached. `quipu worker` and `quipu migrate` have no listener:
# compose.yaml turns the check off for them.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/quipu.js"]
CMD ["serve"]
