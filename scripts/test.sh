#!/usr/bin/env bash
# `npm test`: every check CI runs, in order — lint/format, docs links, type check and production build (side by
# side), the vitest suites of every package in one run (against real PostgreSQL, Redis and PGlite), then the
# browser tests. Prints each step's time and, after vitest, its ten slowest files. docs/testing.md explains it.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1 TURBO_TELEMETRY_DISABLED=1

started=$SECONDS
step_name=""
step_start=$SECONDS
times=()
step() {
  [ -n "$step_name" ] && times+=("$(printf '%5ss  %s' $((SECONDS - step_start)) "$step_name")")
  step_name=$1
  step_start=$SECONDS
  [ -n "$1" ] && printf '\n\033[1m== %s\033[0m\n' "$1"
  return 0
}
summary() {
  step ""
  printf '\n\033[1m== Step times\033[0m\n'
  printf '%s\n' "${times[@]}"
  printf '%5ss  total\n' $((SECONDS - started))
}
trap summary EXIT

step "Services (PostgreSQL, Redis)"
bash scripts/services.sh

step "Lint and format (Biome)"
npx biome ci .

step "Docs (every link and repository path resolves)"
node scripts/check-docs.mjs

# tsc is single-threaded: the type check runs on one core while the production build uses the other.
step "Type check and production build"
npx turbo run typecheck build --concurrency=2 --output-logs=errors-only

step "Unit and integration tests (vitest, every package)"
report=$(mktemp -t vitest-report-XXXXXX.json)
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" || status=$?
node scripts/slowest-tests.mjs "$report" 10 || true
rm -f "$report"
[ "$status" -eq 0 ] || exit "$status"

step "Browser tests (Playwright, Debian Chromium)"
E2E_SKIP_BUILD=1 npm run -w @petstore/web test:e2e
