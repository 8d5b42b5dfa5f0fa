#!/usr/bin/env bash
# `npm test`: every check CI runs — lint/format, docs links, type check and production build (side by side), then
# the vitest suites of every package in one run (against real PostgreSQL, Redis and PGlite) beside the browser
# tests. Prints each step's time and vitest's ten slowest files. docs/testing.md explains it.
set -euo pipefail
cd "$(dirname "$0")/.."
# The project's Node, installed from the npm registry when the machine's is older (scripts/node.sh).
source scripts/node.sh
export NEXT_TELEMETRY_DISABLED=1 TURBO_TELEMETRY_DISABLED=1
echo "Node $(node -v) ($(command -v node)), npm $(npm -v)"

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

# Side by side: the browser suite waits on its server and Chromium for about a fifth of its run, and vitest's
# workers take that share of the two cores (docs/performance.md, "Test suite"). Playwright's output is kept in a
# file and printed after vitest's, so that neither report interleaves with the other.
step "Unit, integration and browser tests (vitest beside Playwright with Debian Chromium)"
e2e_log=$(mktemp -t playwright-XXXXXX.log)
e2e_started=$SECONDS
(
  status=0
  E2E_SKIP_BUILD=1 npm run -s -w @petstore/web test:e2e >"$e2e_log" 2>&1 || status=$?
  printf '\nPlaywright: %ss\n' $((SECONDS - e2e_started)) >>"$e2e_log"
  exit "$status"
) &
e2e_pid=$!

report=$(mktemp -t vitest-report-XXXXXX.json)
vitest_status=0
vitest_started=$SECONDS
# Two workers, not the config's three: with the browser suite beside, a third only queues for the cores and
# stretches the bounded waits of the timing tests.
npx vitest run --maxWorkers=2 --reporter=default --reporter=json --outputFile.json="$report" || vitest_status=$?
printf '\nvitest: %ss\n' $((SECONDS - vitest_started))
node scripts/slowest-tests.mjs "$report" 10 || true
rm -f "$report"

printf '\n\033[1m== Browser tests (Playwright): its report\033[0m\n'
tail -n +1 -f --pid="$e2e_pid" "$e2e_log"
e2e_status=0
wait "$e2e_pid" || e2e_status=$?
rm -f "$e2e_log"
printf '\nvitest: exit %s; Playwright: exit %s\n' "$vitest_status" "$e2e_status"
[ "$vitest_status" -eq 0 ] && [ "$e2e_status" -eq 0 ]
