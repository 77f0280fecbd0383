#!/bin/sh
# Builds the image, checks that a container of it answers /readyz and runs as a user other than
# root. Skips (exit 0, with the reason printed) only when no container runtime can run here or the
# base image cannot be pulled. Usage: deploy/container-smoke.sh (from anywhere in the checkout)
set -eu
cd "$(dirname -- "$0")/.."
RUNTIME=""
for candidate in podman docker; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" info >/dev/null 2>&1; then
    RUNTIME=$candidate
    break
  fi
done
if [ -z "$RUNTIME" ]; then
  echo "container smoke test skipped: neither podman nor docker can run containers here (docker info / podman info failed)"
  exit 0
fi
BASE=$(sed -n "s/^FROM \([^ ]*\).*/\1/p" Dockerfile | head -n 1)
if ! "$RUNTIME" image inspect "$BASE" >/dev/null 2>&1 && ! "$RUNTIME" pull "$BASE" >/dev/null 2>&1; then
  echo "container smoke test skipped: $RUNTIME runs here but cannot pull $BASE (no registry access)"
  exit 0
fi
IMAGE=switchyard-smoke:$$
NAME=switchyard-smoke-$$
PORT=${SMOKE_PORT:-38080}
cleanup() { "$RUNTIME" rm -f "$NAME" >/dev/null 2>&1 || true; }
trap cleanup EXIT
"$RUNTIME" build -t "$IMAGE" .
"$RUNTIME" run -d --name "$NAME" -p "127.0.0.1:$PORT:3000" -e INITIAL_ROOT_PASSWORD=smoke-test-password "$IMAGE"
i=0
until curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1; do
  i=$((i + 1))
  if [ "$i" -gt 120 ]; then
    "$RUNTIME" logs "$NAME" >&2 || true
    echo "container smoke test failed: /readyz did not answer" >&2
    exit 1
  fi
  sleep 1
done
echo "container answers /readyz: $(curl -fsS "http://127.0.0.1:$PORT/readyz")"
"$RUNTIME" exec "$NAME" id -u | grep -qv '^0$' || { echo "container runs as root" >&2; exit 1; }
echo "container smoke test passed ($RUNTIME)"
