import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files are isolated from each other (a migrated database copy each, random Redis prefixes, ports chosen by
    // the system) and spend much of their time waiting on PostgreSQL, Redis, timers and child processes: two
    // run side by side even on a 2-core machine, where the default would be one.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
