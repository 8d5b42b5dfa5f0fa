#!/usr/bin/env bash
# `npm test`: every check CI runs, in order — lint/format, type check, production build, the vitest suites
# of every package (against real PostgreSQL, Redis and PGlite), then the browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1 TURBO_TELEMETRY_DISABLED=1

step() { printf '\n\033[1m== %s\033[0m\n' "$1"; }

step "Services (PostgreSQL, Redis)"
bash scripts/services.sh

step "Lint and format (Biome)"
npx biome ci .

step "Docs (every link and repository path resolves)"
node scripts/check-docs.mjs

step "Type check (every package)"
npx turbo run typecheck --concurrency=1 --output-logs=errors-only

step "Production build"
npx turbo run build --output-logs=errors-only

step "Unit and integration tests (vitest)"
npx turbo run test --concurrency=1 --continue --output-logs=full

step "Browser tests (Playwright, Debian Chromium)"
E2E_SKIP_BUILD=1 npm run -w @petstore/web test:e2e
