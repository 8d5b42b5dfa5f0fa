import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A worker keeps the modules it loaded from one file to the next (docs/testing.md, "Isolation").
    isolate: false,
    // PGlite boots take 2-3 s each and the WASM schema engine replays migrations on a shadow PGlite.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
