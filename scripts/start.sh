#!/usr/bin/env bash
# `npm start` (README "Start it"): on the project's Node (scripts/node.sh), builds the app, then execs the server
# (`npm run -w @petstore/web start`, which execs node), so that a signal sent to npm's process reaches it.
# Arguments go to the server: `npm start -- --inspect` (docs/operations.md "Debugging").
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node.sh
export NEXT_TELEMETRY_DISABLED=1 TURBO_TELEMETRY_DISABLED=1
# The build's own lines (Next's, turbo's) only when it fails: the first lines a newcomer sees are the server's.
echo "Building the app (a minute or two on the first start) ..."
log=$(mktemp -t petstore-build-XXXXXX.log)
if ! npm run -s build >"$log" 2>&1; then
  cat "$log"
  rm -f "$log"
  exit 1
fi
rm -f "$log"
exec npm run -s -w @petstore/web start -- "$@"
