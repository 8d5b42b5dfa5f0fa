import path from "node:path";

/** @type {import("next").NextConfig} */
const nextConfig = {
  // Workspace packages are TypeScript source.
  transpilePackages: ["@petstore/config", "@petstore/contracts", "@petstore/core", "@petstore/db"],
  // Native/WASM-backed server libraries load from node_modules at run time instead of being bundled.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "@prisma/client",
    "@prisma/adapter-pg",
    "@prisma/driver-adapter-utils",
    "pg",
    "ioredis",
    "pino",
    // One prom-client per process, so that every route bundle reaches the same metric classes.
    "prom-client",
  ],
  poweredByHeader: false,
  // The React Compiler memoizes the dashboard's components and hooks at build time, so that a keystroke or a
  // checkbox re-renders what it changes, not every row of a 100-row table (docs/performance.md, "Console
  // interactions").
  reactCompiler: true,
  // Next traces the files the dashboard needs at run time (from the repository root: the workspace packages and the
  // hoisted node_modules) into .next/standalone, which scripts/production-folder.mjs copies into the production
  // folder (docs/operations.md "The production folder").
  output: "standalone",
  outputFileTracingRoot: path.join(import.meta.dirname, "..", ".."),
  // Route modules load on their first request instead of all at start: a server that only serves /v1 (through
  // server.ts) never loads the dashboard's (Next's docs/app/guides/memory-usage, "Preloading Entries").
  experimental: { preloadEntriesOnStart: false },
  typedRoutes: false,
};

export default nextConfig;
