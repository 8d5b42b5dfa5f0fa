#!/usr/bin/env bash
# `npm test`: every check CI runs — lint/format, docs links, type check and production build (side by side), then
# the vitest suites of every package in one run (against real PostgreSQL, Redis and PGlite), then the browser
# tests. Prints each step's time and vitest's ten slowest files. docs/testing.md explains it.
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

# One after the other: side by side, the browser suite and vitest's three workers asked for about twice what the
# two cores give, and the waits both bound (page renders, drains, pooled connections) failed on the busy machine
# without the run being any shorter (docs/performance.md, "Test suite").
step "Unit and integration tests (vitest)"
report=$(mktemp -t vitest-report-XXXXXX.json)
vitest_status=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" || vitest_status=$?
node scripts/slowest-tests.mjs "$report" 10 || true
rm -f "$report"

step "Browser tests (Playwright, Debian Chromium)"
e2e_status=0
E2E_SKIP_BUILD=1 npm run -s -w @petstore/web test:e2e || e2e_status=$?
printf '\nvitest: exit %s; Playwright: exit %s\n' "$vitest_status" "$e2e_status"
[ "$vitest_status" -eq 0 ] && [ "$e2e_status" -eq 0 ]
