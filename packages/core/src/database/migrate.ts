/**
 * `@petstore/core/migrate`: applies the pending database migrations and checks a database against the build
 * (docs/operations.md, "Migrations"). A subpath of its own because it loads Prisma's WebAssembly schema engine,
 * which the Next.js bundle must not carry: server.ts, the CLI and the tests import it, the web app's routes never do.
 */
import type { DatabaseConfig } from "@petstore/config";
import type { Database } from "@petstore/db";
import {
  checkMigrations,
  type DeployResult,
  deployMigrations,
  type MigrateOptions,
} from "@petstore/db/migrate";

export { DatabaseUnreachableError, MigrationError } from "@petstore/db/migrate";
export type { DeployResult as MigrationResult };

/**
 * Applies every pending migration to `target`: a database configuration (opened for the call and closed
 * after), or, as `openRuntime`'s `prepare` hook, the database the runtime just opened (an embedded PGlite
 * is reused, never opened twice). `options.paths` names another migrations folder (tests of older releases).
 * @returns `{applied: string[], total: number}`: migration folder names applied now (empty: up to date), and
 *   how many the repository has.
 * @throws MigrationError when a migration fails, a failed one is recorded, or the database is unreachable.
 */
export function migrate(
  target: DatabaseConfig | Database,
  options: MigrateOptions = {},
): Promise<DeployResult> {
  return deployMigrations(target, options);
}

/**
 * The `prepare` hook of the server and of the `petstore` command: makes sure `db` holds exactly this build's
 * migrations before anything reads or writes it.
 * The embedded database, or any database with `migrateOnStart` (MIGRATE_ON_START=true), is migrated first (on
 * PostgreSQL under Prisma Migrate's advisory lock, so instances starting together apply each migration once);
 * then the database is compared with the build.
 * @param log receives one line naming the migrations applied, when any were.
 * @param command how an operator runs the `petstore` command there, for the refusal's fix (default
 *   `npm run petstore --`; `node cli.js` in the production folder).
 * @throws EnvironmentStateError (a ConfigError: exit code 2) when a migration is pending, unknown to the build or
 *   failed, or the database is empty; DatabaseUnreachableError when it does not answer; MigrationError when
 *   applying fails.
 */
export async function prepareDatabase(
  db: Database,
  options: { migrateOnStart: boolean; log: (line: string) => void; command?: string },
): Promise<void> {
  if (options.migrateOnStart || db.config.kind === "pglite") {
    const { applied } = await deployMigrations(db);
    if (applied.length) options.log(`Applied migrations: ${applied.join(", ")}`);
  }
  await checkMigrations(db, options.command ? { command: options.command } : {});
}
