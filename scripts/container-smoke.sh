#!/usr/bin/env bash
# Builds Quipu's image from the Dockerfile and runs it (docs/containers.md):
#
# 1. one container on its embedded SQLite database in developer mode: it answers /readyz, runs as
#    a user other than root, passes its own health check, creates a payment and reads it back, pays
#    it with `quipu payments pay` run inside it, and stops on SIGTERM with exit code 0;
# 2. with SMOKE_POSTGRES_URL (a PostgreSQL server's administrator URL, reached from the host's
#    network), compose.yaml's topology as containers on the host's network, with SANDBOX=false:
#    `quipu migrate` to completion, two `quipu serve` with RUN_WORKER=false and a `quipu worker`
#    on a new database, every secret a file mounted at /run/secrets as compose mounts its secrets;
#    a production payment created on one API container, read on the other, and paid through the
#    operator API. The database is dropped at the end.
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
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
ENGINE=${ENGINE:-$(command -v docker >/dev/null && echo docker || echo podman)}
IMAGE=${IMAGE:-quipu:smoke}
read -r -a run_opts <<<"${RUN_OPTS:-}"
suffix=$(node -p 'require("node:crypto").randomBytes(4).toString("hex")')
containers=()
database=""
secrets=""

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

build=(build "${run_opts[@]}" -t "$IMAGE")
# Podman writes OCI images unless told otherwise, and OCI images have no HEALTHCHECK.
case "$ENGINE" in *podman*) build+=(--format docker) ;; esac
[ -n "${BUILD_IMAGE:-}" ] && build+=(--build-arg "BUILD_IMAGE=$BUILD_IMAGE")
[ -n "${RUNTIME_IMAGE:-}" ] && build+=(--build-arg "RUNTIME_IMAGE=$RUNTIME_IMAGE")
echo "== $ENGINE ${build[*]} $root"
$ENGINE "${build[@]}" "$root"

echo '== one container, SQLite, developer mode'
key=51f210fe-2fa4-4205-b21b-f1d72d92ebb1
port=$(free_port)
name=quipu-smoke-$suffix
containers+=("$name")
$ENGINE run -d "${run_opts[@]}" --name "$name" -p "127.0.0.1:$port:3000" -e DEMO_API_KEY=$key "$IMAGE" >/dev/null
base=http://127.0.0.1:$port
wait_ready "$base"
[ "$($ENGINE exec "$name" id -u)" != 0 ] || fail 'the container runs as root'
case "$ENGINE" in *podman*) $ENGINE healthcheck run "$name" || fail 'the health check failed' ;; esac
payment=$(curl -sf -H "x-api-key: $key" -H 'content-type: application/json' "$base/v3/payments" -d '{"amount":1000,"currency":"CLP","subject":"Container smoke"}')
id=$(echo "$payment" | json payment_id)
[ "$(curl -sf -H "x-api-key: $key" "$base/v3/payments/$id" | json status)" = pending ] || fail "payment $id not read back pending"
$ENGINE exec "$name" node /app/bin/quipu.js payments pay "$id"
[ "$(curl -sf -H "x-api-key: $key" "$base/v3/payments/$id" | json status)" = done ] || fail "payment $id not done after quipu payments pay"
$ENGINE stop -t 30 "$name" >/dev/null
[ "$($ENGINE inspect "$name" --format '{{.State.ExitCode}}')" = 0 ] || fail 'quipu serve did not exit 0 on SIGTERM'
echo "ok: /readyz, health check, payment $id created, read and paid, stopped with exit code 0"

[ -n "${SMOKE_POSTGRES_URL:-}" ] || exit 0

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
