#!/bin/sh
# Stand-in for Prisma's native schema engine, which cannot be downloaded here.
# `prisma generate` only checks that the path exists; migrations use the WebAssembly engine (src/migrate).
echo "The native Prisma schema engine is not installed; use 'npm run db:migrate -- deploy|create|status'." >&2
exit 1
