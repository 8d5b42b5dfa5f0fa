/** `resolve`: records by hand how a failed migration ended, as `prisma migrate resolve` does. */
import { readMigrationsList } from "./files.ts";
import { type MigrateOptions, type MigrationTarget, withSchemaEngine } from "./target.ts";

/**
 * Marks migration `name` as `rolled-back` (it failed and its changes are gone: deploy will run it again)
 * or `applied` (its changes were made by hand: deploy will skip it).
 * @throws MigrationError when `name` is not in the folder, or (rolled-back) is not recorded as failed.
 */
export async function resolveMigration(
  target: MigrationTarget,
  name: string,
  outcome: "rolled-back" | "applied",
  options: MigrateOptions = {},
): Promise<void> {
  await withSchemaEngine(target, { ...options, usesDatabase: true }, async (engine, paths) => {
    if (outcome === "rolled-back") {
      await engine.markMigrationRolledBack({ migrationName: name });
      return;
    }
    const migrationsList = await readMigrationsList(paths.migrationsDir);
    await engine.markMigrationApplied({ migrationName: name, migrationsList });
  });
}
