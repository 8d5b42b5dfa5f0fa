/**
 * Prisma Migrate on the WebAssembly schema engine: deploy, status, create, resolve, and a diff for tests.
 * Migrations live in the repo-root `prisma/migrations` folder in Prisma Migrate's standard format.
 */
export {
  checkMigrations,
  compareMigrations,
  DatabaseUnreachableError,
  type MigrationCheck,
} from "./check.ts";
export {
  type CreateMigrationResult,
  createMigration,
  diffMigrationsToSchema,
  MIGRATION_NAME,
} from "./create.ts";
export { type DeployResult, deployMigrations } from "./deploy.ts";
export { defaultMigrationPaths, type MigrationPaths } from "./files.ts";
export { resolveMigration } from "./resolve.ts";
export { type MigrationStatus, migrationStatus } from "./status.ts";
export { type MigrateOptions, MigrationError, type MigrationTarget } from "./target.ts";
