#!/usr/bin/env bash
# Builds Quipu's image from its npm package and checks it (docs/containers.md):
#
# 1. the package: `npm pack` (which builds dist/) into a folder of its own, the image's whole build
#    context, and beside it the SBOM of what the image installs (scripts/package-sbom.mjs);
# 2. the image, built twice from that tarball with the last commit's time as SOURCE_DATE_EPOCH: both
#    builds must have the same layers, configuration and time (reproducible); its size compressed;
# 3. one container on SQLite in developer mode: ready, not root, healthy, a payment created, read
#    and paid with `quipu payments pay` run inside it, exit code 0 on SIGTERM;
# 4. start-up: STARTS containers (20), each on a fresh volume with the demo account from DEMO_*,
#    timed from the container's start (its State.StartedAt) and from the engine's `run` to /readyz 200;
# 5. offline: a container with `--network none`, every connect(2) of its processes traced from
#    before its first instruction (`init`, then strace, then `start`), runs a merchant's day
#    (test/helpers/container-example.ts) from inside its network namespace, where the receiver
#    listens too: not one connection may leave the loopback; the first signed notification's time
#    from the container's start is measured;
# 6. with SMOKE_POSTGRES_URL (a PostgreSQL server's administrator URL, reached from the host's
#    network), compose.yaml's topology as containers on the host's network, with SANDBOX=false:
#    `quipu migrate` to completion, two `quipu serve` with RUN_WORKER=false and a `quipu worker`
#    on a new database, every secret a file mounted at /run/secrets as compose mounts its secrets;
#    a production payment created on one API container, read on the other, and paid through the
#    operator API. The database is dropped at the end.
#
# The figures are printed last, as the rows docs/benchmarks.md keeps, each target met or missed (a
# missed target is reported, not a failure: the machine decides much of it). Exit 1: a check failed.
#
# Settings (environment):
#   ENGINE          the container command: docker (default when present) or podman, with options
#                   of its own, e.g. "podman --runtime runc"
#   RUN_OPTS        options added to every build and run, e.g. "--ulimit nofile=20000:20000" where
#                   the engine's default limits exceed what this host lets a process set
#   BUILD_IMAGE, RUNTIME_IMAGE   the Dockerfile's base images (scripts/container-base.sh makes a
#                   pair on a machine without an image registry: localhost/quipu-build-base and
#                   localhost/quipu-runtime-base)
#   IMAGE           the tag built (quipu:smoke)
#   OUT             where the tarball and the SBOM are written (a new temporary folder)
#   STARTS          how many starts are timed (20)
# Parts 4 and 5 run as root (nsenter, strace); with docker, strace attaches right after `start`.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
ENGINE=${ENGINE:-$(command -v docker >/dev/null && echo docker || echo podman)}
IMAGE=${IMAGE:-quipu:smoke}
OUT=${OUT:-$(mktemp -d /tmp/quipu-image.XXXXXX)}
STARTS=${STARTS:-20}
read -r -a run_opts <<<"${RUN_OPTS:-}"
suffix=$(node -p 'require("node:crypto").randomBytes(4).toString("hex")')
containers=()
database=""
secrets=""
figures=()

cleanup() {
  for name in "${containers[@]}"; do $ENGINE rm -f "$name" >/dev/null 2>&1 || true; done
  if [ -n "$database" ]; then psql -q "$SMOKE_POSTGRES_URL" -c "drop database if exists $database with (force)" >/dev/null || true; fi
  if [ -n "$secrets" ]; then rm -rf "$secrets"; fi
}
trap cleanup EXIT

fail() {
  echo "container-smoke: $*" >&2
  exit 1
}
# A member of the JSON object on stdin.
json() { node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s)[process.argv[1]] ?? ""))' "$1"; }
wait_ready() {
  for _ in $(seq 1 120); do
    curl -sf "$1/readyz" >/dev/null && return 0
    sleep 0.5
  done
  fail "$1/readyz did not answer 200"
}
free_port() { node -e 's = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }
now_ms() { date +%s%3N; }
# When a container's process started, in epoch ms (podman: a time value; docker: an RFC 3339 string).
started_ms() {
  local at
  at=$($ENGINE inspect "$1" --format '{{.State.StartedAt}}')
  date -d "$(echo "$at" | sed -E 's/ [A-Z]+$//')" +%s%3N
}
# One row of the figures: what, the figure, the target and whether it was met ("-" for none).
figure() { figures+=("| $1 | $2 | $3 | $4 |"); }
verdict() { node -e 'console.log(Number(process.argv[1]) < Number(process.argv[2]) ? "met" : "**missed**")' "$1" "$2"; }

is_podman=false
case "$ENGINE" in *podman*) is_podman=true ;; esac

mkdir -p "$OUT"
echo "== npm pack into $OUT"
(cd "$root" && npm pack --silent --pack-destination "$OUT" >/dev/null)
tarball=$(ls "$OUT"/quipu-*.tgz)
version=$(basename "$tarball" .tgz)
# The SBOM of the image's npm components, from the lockfile the image's `npm ci --omit=dev` reads.
node "$root/scripts/package-sbom.mjs" "$tarball" >"$OUT/$version.cdx.json"
figure '`npm pack` tarball' "$(stat -c %s "$tarball") B" - -
echo "ok: $tarball, its SBOM $OUT/$version.cdx.json ($(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1])).components.length' "$OUT/$version.cdx.json") components)"

SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct)}
export SOURCE_DATE_EPOCH
build_image() {
  local tag=$1
  shift
  local build=(build "${run_opts[@]}" -t "$tag" "$@")
  if $is_podman; then
    # Podman writes OCI images unless told otherwise, and OCI images have no HEALTHCHECK.
    build+=(--format docker --timestamp "$SOURCE_DATE_EPOCH")
  else
    build=(buildx build "${run_opts[@]}" -t "$tag" "$@" --build-arg "SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH" --output type=docker,rewrite-timestamp=true)
  fi
  [ -n "${BUILD_IMAGE:-}" ] && build+=(--build-arg "BUILD_IMAGE=$BUILD_IMAGE")
  [ -n "${RUNTIME_IMAGE:-}" ] && build+=(--build-arg "RUNTIME_IMAGE=$RUNTIME_IMAGE")
  echo "== $ENGINE ${build[*]} $OUT"
  $ENGINE "${build[@]}" -f "$root/Dockerfile" "$OUT"
}
build_image "$IMAGE"
build_image "$IMAGE-again" --no-cache
# The same layers, digest for digest, the same configuration and creation time. (The image id also
# covers the build container's id and host name, which podman's docker format records: with podman
# those differ from build to build; buildx with rewrite-timestamp gives one id.)
identity() { $ENGINE image inspect "$1" --format '{{json .RootFS}} {{json .Config}} {{.Created}}'; }
if [ "$(identity "$IMAGE")" != "$(identity "$IMAGE-again")" ]; then
  diff <(identity "$IMAGE" | tr ',' '\n') <(identity "$IMAGE-again" | tr ',' '\n') >&2 || true
  fail "two builds of $version differ (above; both images kept)"
fi
layers=$($ENGINE image inspect "$IMAGE" --format '{{len .RootFS.Layers}}')
$ENGINE rmi "$IMAGE-again" >/dev/null
size=$($ENGINE save "$IMAGE" | gzip -n | wc -c)
figure 'image, compressed (`save \| gzip`)' "$(node -p "($size / 1e6).toFixed(1)") MB" '< 150 MB' "$(verdict "$size" 150000000)"
echo "ok: built twice from the tarball: the same $layers layers, configuration and time"

echo '== one container, SQLite, developer mode'
key=51f210fe-2fa4-4205-b21b-f1d72d92ebb1
secret=5e0c4a1f2b3d4e5f60718293a4b5c6d7e8f90a1b
demo=(-e DEMO_API_KEY=$key -e DEMO_SECRET=$secret)
port=$(free_port)
name=quipu-smoke-$suffix
containers+=("$name")
$ENGINE run -d "${run_opts[@]}" --name "$name" -p "127.0.0.1:$port:3000" "${demo[@]}" "$IMAGE" >/dev/null
base=http://127.0.0.1:$port
wait_ready "$base"
[ "$($ENGINE exec "$name" id -u)" != 0 ] || fail 'the container runs as root'
$is_podman && { $ENGINE healthcheck run "$name" || fail 'the health check failed'; }
payment=$(curl -sf -H "x-api-key: $key" -H 'content-type: application/json' "$base/v3/payments" -d '{"amount":1000,"currency":"CLP","subject":"Container smoke"}')
id=$(echo "$payment" | json payment_id)
[ "$(curl -sf -H "x-api-key: $key" "$base/v3/payments/$id" | json status)" = pending ] || fail "payment $id not read back pending"
$ENGINE exec "$name" node /app/bin/quipu.js payments pay "$id"
[ "$(curl -sf -H "x-api-key: $key" "$base/v3/payments/$id" | json status)" = done ] || fail "payment $id not done after quipu payments pay"
$ENGINE stop -t 30 "$name" >/dev/null
[ "$($ENGINE inspect "$name" --format '{{.State.ExitCode}}')" = 0 ] || fail 'quipu serve did not exit 0 on SIGTERM'
echo "ok: /readyz, health check, payment $id created, read and paid, stopped with exit code 0"

echo "== $STARTS starts, each on a fresh volume"
from_start=()
from_run=()
for n in $(seq 1 "$STARTS"); do
  port=$(free_port)
  name=quipu-start-$n-$suffix
  containers+=("$name")
  asked=$(now_ms)
  $ENGINE run -d "${run_opts[@]}" --name "$name" -p "127.0.0.1:$port:3000" "${demo[@]}" "$IMAGE" >/dev/null
  until curl -sf "http://127.0.0.1:$port/readyz" >/dev/null; do
    [ $(($(now_ms) - asked)) -lt 60000 ] || fail "start $n: not ready within 60 s"
    sleep 0.01
  done
  ready=$(now_ms)
  from_start+=($((ready - $(started_ms "$name"))))
  from_run+=($((ready - asked)))
  $ENGINE rm -f -v "$name" >/dev/null
done
# Median and 95th percentile (nearest rank) of the arguments, in ms.
percentiles() { node -e 'const v = process.argv.slice(1).map(Number).sort((a, b) => a - b); const at = (p) => v[Math.ceil(p * v.length) - 1]; const m = v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2; console.log(m, at(0.95))' "$@"; }
read -r median p95 < <(percentiles "${from_start[@]}")
read -r run_median run_p95 < <(percentiles "${from_run[@]}")
figure "ready (\`/readyz\` 200) from the container's start, median of $STARTS" "$median ms" '< 1,000 ms' "$(verdict "$median" 1000)"
figure "the same, 95th percentile" "$p95 ms" '< 2,000 ms' "$(verdict "$p95" 2000)"
figure "ready from \`$ENGINE run\` (the engine's own start included), median · p95" "$run_median ms · $run_p95 ms" - -
echo "ok: ready from the container's start: ${from_start[*]} ms"

echo '== offline: --network none, every connect(2) traced'
name=quipu-offline-$suffix
containers+=("$name")
trace=$OUT/offline-connect.trace
$ENGINE create "${run_opts[@]}" --name "$name" --network none "${demo[@]}" "$IMAGE" >/dev/null
if $is_podman; then
  # Created and initialised: its first process waits to be started, so the trace misses nothing.
  $ENGINE init "$name" >/dev/null
  pid=$($ENGINE inspect "$name" --format '{{.State.Pid}}')
  strace -f -qq -e trace=connect -p "$pid" -o "$trace" &
  tracer=$!
  sleep 0.5
  $ENGINE start "$name" >/dev/null
else
  $ENGINE start "$name" >/dev/null
  pid=$($ENGINE inspect "$name" --format '{{.State.Pid}}')
  strace -f -qq -e trace=connect -p "$pid" -o "$trace" &
  tracer=$!
fi
started=$(started_ms "$name")
day=$(cd "$root" && nsenter --target "$pid" --net node --import tsx test/helpers/container-example.ts "$ENGINE" "$name" "$key" "$secret" | tail -n 1)
$ENGINE stop -t 30 "$name" >/dev/null
wait "$tracer" || true
for field in payment:done refunded:true subscription:ENABLED charge:done signed:true; do
  [ "$(echo "$day" | json "${field%%:*}")" = "${field#*:}" ] || fail "the offline example ended with $day"
done
loopback=$(grep -c 'connect(' "$trace" || true)
outside=$(grep 'connect(' "$trace" | grep -v -E 'inet_addr\("127\.0\.0\.1"\)|inet_pton\(AF_INET6, "::1"|sun_path=' || true)
[ "$loopback" -gt 0 ] || fail "no connect(2) was traced in $trace"
[ -z "$outside" ] || fail "connections beyond the loopback: $outside"
notified=$(($(echo "$day" | json firstNotificationAt) - started))
figure "first signed notification, from the container's start (\`--network none\`, a receiver in its network namespace)" "$notified ms" '< 3,000 ms' "$(verdict "$notified" 3000)"
figure 'connections tried beyond the loopback (offline run)' 0 0 met
echo "ok: offline, $day; $loopback connect(2) calls, all to the loopback"

print_figures() {
  echo "== figures, $version, $(date -u +%Y-%m-%dT%H:%MZ), $ENGINE, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo '| figure | value | target | |'
  echo '| --- | --- | --- | --- |'
  printf '%s\n' "${figures[@]}"
}
if [ -z "${SMOKE_POSTGRES_URL:-}" ]; then
  print_figures
  exit 0
fi

echo "== compose.yaml's topology on PostgreSQL, SANDBOX=false"
database=quipu_smoke_$suffix
psql -q "$SMOKE_POSTGRES_URL" -c "create database $database" >/dev/null
database_url=$(node -p 'const u = new URL(process.argv[1]); u.pathname = "/" + process.argv[2]; u.toString()' "$SMOKE_POSTGRES_URL" "$database")
token=$(node -p 'require("node:crypto").randomBytes(32).toString("hex")')
# The secrets as compose hands them over: files mounted read-only at /run/secrets, named by
# <NAME>_FILE (a production installation refuses them as environment variables). Readable by the
# container's user (uid 10001, or its rootless mapping), in a folder only this user may enter.
secrets=$(mktemp -d)
echo "$database_url" >"$secrets/database_url"
node -p 'require("node:crypto").randomBytes(32).toString("hex")' >"$secrets/quipu_encryption_key"
echo "$token" >"$secrets/operator_token"
chmod 0444 "$secrets"/*
settings=(-e SANDBOX=false -e PUBLIC_BASE_URL=https://pay.example
  -e DASHBOARD_BASE_URL=https://dashboard.pay.example -e LOG_DESTINATION=stdout
  -v "$secrets/database_url:/run/secrets/database_url:ro" -e DATABASE_URL_FILE=/run/secrets/database_url
  -v "$secrets/quipu_encryption_key:/run/secrets/quipu_encryption_key:ro" -e QUIPU_ENCRYPTION_KEY_FILE=/run/secrets/quipu_encryption_key
  -v "$secrets/operator_token:/run/secrets/operator_token:ro" -e OPERATOR_TOKEN_FILE=/run/secrets/operator_token
  -e COLLECTION_BANK_ID=dfFbF -e COLLECTION_ACCOUNT_TYPE=cuenta_vista -e COLLECTION_ACCOUNT_NUMBER=00-123-45678-09
  -e 'COLLECTION_HOLDER_NAME=Pagos Andes SpA' -e COLLECTION_HOLDER_RUT=123456785 -e SHUTDOWN_DRAIN_MS=0)
quipu_run() { $ENGINE run --rm "${run_opts[@]}" --network host "${settings[@]}" "$IMAGE" "$@"; }
quipu_run migrate
apis=()
for n in 1 2; do
  port=$(free_port)
  containers+=("quipu-smoke-api-$n-$suffix")
  $ENGINE run -d "${run_opts[@]}" --name "quipu-smoke-api-$n-$suffix" --network host "${settings[@]}" -e RUN_WORKER=false -e "PORT=$port" "$IMAGE" serve >/dev/null
  apis+=("http://127.0.0.1:$port")
done
containers+=("quipu-smoke-worker-$suffix")
$ENGINE run -d "${run_opts[@]}" --name "quipu-smoke-worker-$suffix" --network host "${settings[@]}" --no-healthcheck "$IMAGE" worker >/dev/null
for api in "${apis[@]}"; do wait_ready "$api"; done
for _ in $(seq 1 60); do
  $ENGINE logs "quipu-smoke-worker-$suffix" 2>&1 | grep -q 'background jobs started' && break
  sleep 0.5
done
$ENGINE logs "quipu-smoke-worker-$suffix" 2>&1 | grep -q 'background jobs started' || fail 'the worker did not start'
account=$(quipu_run merchants create --name 'Container smoke' --production --json)
key=$(echo "$account" | json api_key)
payment=$(curl -sf -H "x-api-key: $key" -H 'content-type: application/json' "${apis[0]}/v3/payments" -d '{"amount":1000,"currency":"CLP","subject":"Container smoke"}')
id=$(echo "$payment" | json payment_id)
[ "$(curl -sf -H "x-api-key: $key" "${apis[1]}/v3/payments/$id" | json status)" = pending ] || fail "payment $id not read back on the second API container"
credit=$(curl -sf -H "authorization: Bearer $token" -H 'content-type: application/json' "${apis[1]}/operator/v1/credits" \
  -d "{\"credits\":[{\"bank_reference\":\"SMOKE-$suffix\",\"account\":\"00-123-45678-09\",\"amount\":1000,\"currency\":\"CLP\",\"reference\":\"$id\",\"credited_at\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"}]}")
[ "$(echo "$credit" | json matched)" = 1 ] || fail "the credit did not match: $credit"
[ "$(curl -sf -H "x-api-key: $key" "${apis[0]}/v3/payments/$id" | json status)" = done ] || fail "payment $id not done after its credit"
echo "ok: migrated, two API containers ready, a worker, secrets from files; payment $id created on one, read on the other, paid by a bank credit"
print_figures
