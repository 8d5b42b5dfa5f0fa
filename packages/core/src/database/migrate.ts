/**
 * `@petstore/core/migrate`: applies the pending database migrations (docs/operations.md, "Migrations").
 * A subpath of its own because it loads Prisma's WebAssembly schema engine, which the Next.js bundle must
 * not carry: server.ts, the CLI and the tests import it, the web app's routes never do.
 */
import type { DatabaseConfig } from "@petstore/config";
import type { Database } from "@petstore/db";
import { type DeployResult, deployMigrations } from "@petstore/db/migrate";

export { MigrationError } from "@petstore/db/migrate";
export type { DeployResult as MigrationResult };

/**
 * Applies every pending migration to `target`: a database configuration (opened for the call and closed
 * after), or, as `openRuntime`'s `prepare` hook, the database the runtime just opened (an embedded PGlite
 * is reused, never opened twice).
 * @returns `{applied: string[], total: number}`: migration folder names applied now (empty: up to date), and
 *   how many the repository has.
 * @throws MigrationError when a migration fails, a failed one is recorded, or the database is unreachable.
 */
export function migrate(target: DatabaseConfig | Database): Promise<DeployResult> {
  return deployMigrations(target);
}
