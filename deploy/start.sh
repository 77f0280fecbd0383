#!/bin/sh
# Starts Switchyard from a built checkout or an installed package: the container's entry point,
# the systemd unit's ExecStart and the start test all run this one script.
# Usage: start.sh [start|import|migrate|create-root] [arguments…]
set -eu
APP_DIR=${APP_DIR:-$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)}
ENTRY="$APP_DIR/server/dist/cli/switchyard.js"
if [ ! -f "$ENTRY" ]; then
  echo "start.sh: $ENTRY is missing; run npm run build first" >&2
  exit 1
fi
# A fixed young generation keeps the relay's short-lived garbage cheap; without allocation-site
# pretenuring a stream's objects die young instead of in the old generation (docs/performance.md).
exec node --min-semi-space-size=16 --max-semi-space-size=16 --no-allocation-site-pretenuring "$ENTRY" "$@"
