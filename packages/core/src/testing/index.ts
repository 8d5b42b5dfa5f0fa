/**
 * `@petstore/core/testing`: what tests, end-to-end setups, the benchmark and build scripts need beyond the
 * runtime: the runtime's open database (to arrange or inspect rows, or to break the connection), throwaway
 * PostgreSQL databases, waiting helpers, and rate-limit store helpers (an Upstash REST bridge to a real Redis, key clean-up).
 * Application code never imports it (Biome `noRestrictedImports` in biome.json; docs/architecture.md).
 */
export {
  createDatabaseBehind,
  createMigratedDatabase,
  createMigratedPGliteDir,
  createTemporaryDatabase,
  type DatabaseBehind,
  type NamedDatabase,
  openNamedDatabase,
  type TemporaryDatabase,
  type TemporaryPGliteDir,
} from "@petstore/db/testing";
export { databaseOf } from "../database/operations.ts";
export * from "./rate-limit-stores.ts";
export * from "./wait.ts";
export * from "./webhook-receiver.ts";
