/**
 * The whole vitest run (`npm test`, scripts/test.sh): every package's own vitest config is a project, and one
 * pool of workers runs the files of all of them, so the long process-level files of apps/web overlap with the
 * short package files instead of waiting for them. One file or package: docs/testing.md.
 */
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: ["apps/*/vitest.config.ts", "packages/*"],
    // Most files wait on PostgreSQL, Redis or a spawned server more than they compute: a third worker keeps both
    // cores busy. Each file has its own database and key prefixes (docs/testing.md, "Isolation").
    maxWorkers: 3,
  },
});
