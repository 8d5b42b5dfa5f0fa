import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // A worker keeps the modules it loaded from one file to the next (docs/testing.md, "Isolation").
    isolate: false,
  },
});
