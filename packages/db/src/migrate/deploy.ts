/** `deploy`: applies the migrations the database has not run yet. */
import { engineErrorMessage, NO_FILTERS } from "./engine.ts";
import { readMigrationsList } from "./files.ts";
import { type MigrateOptions, MigrationError, type MigrationTarget, withSchemaEngine } from "./target.ts";

/** What `deployMigrations` did. */
export interface DeployResult {
  /** Folder names of the migrations applied by this call, in order (empty when already up to date). */
  applied: string[];
  /** Number of migrations in the folder. */
  total: number;
}

/**
 * Applies every pending migration of the migrations folder to `target`, in name order. Each migration
 * runs in one transaction, so a failing one leaves no partial changes; it is recorded as failed (not
 * applied) in `_prisma_migrations`, and later deploys refuse to run until it is resolved (Prisma P3009).
 * @throws MigrationError when a migration fails, a failed migration is recorded, or the database is unreachable.
 */
export async function deployMigrations(
  target: MigrationTarget,
  options: MigrateOptions = {},
): Promise<DeployResult> {
  return withSchemaEngine(
    target,
    { ...options, usesDatabase: true },
    async (engine, paths, errorRegistry) => {
      const migrationsList = await readMigrationsList(paths.migrationsDir);
      const before = await engine.diagnoseMigrationHistory({
        migrationsList,
        optInToShadowDatabase: false,
        filters: NO_FILTERS,
      });
      try {
        const { appliedMigrationNames } = await engine.applyMigrations({
          migrationsList,
          filters: NO_FILTERS,
        });
        return { applied: appliedMigrationNames, total: migrationsList.migrationDirectories.length };
      } catch (error) {
        // The engine's message does not say which migration failed: find the one that just did.
        const after = await engine
          .diagnoseMigrationHistory({ migrationsList, optInToShadowDatabase: false, filters: NO_FILTERS })
          .catch(() => undefined);
        const failed = after?.failedMigrationNames.find((n) => !before.failedMigrationNames.includes(n));
        if (!failed) throw error;
        const detail = engineErrorMessage(error, errorRegistry).replace(/^external connector error\s*/i, "");
        throw new MigrationError(
          `Migration ${failed} failed and was rolled back: ${detail}\n` +
            `Fix it, then run \`resolve --rolled-back ${failed}\` and deploy again.`,
          "P3018",
          { cause: error },
        );
      }
    },
  );
}
