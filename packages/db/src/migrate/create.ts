/** `create`: writes a new migration from the difference between the migrations folder and schema.prisma. */
import fs from "node:fs";
import { NO_FILTERS } from "./engine.ts";
import { LOCKFILE_CONTENT, nextMigrationFolderName, readMigrationsList, writeMigration } from "./files.ts";
import {
  type MigrateOptions,
  MigrationError,
  type MigrationTarget,
  resolvePaths,
  withSchemaEngine,
} from "./target.ts";

/** What `createMigration` did. */
export type CreateMigrationResult =
  | {
      created: true;
      /** Folder name `<timestamp>_<name>`. */
      name: string;
      /** Absolute path of the new migration.sql. */
      file: string;
      /** Its content. */
      sql: string;
    }
  | {
      created: false;
      /** Why nothing was written. */
      reason: string;
    };

/** Migration names: letters, digits and underscores, starting with a letter, at most 100 characters. */
export const MIGRATION_NAME = /^[A-Za-z][A-Za-z0-9_]{0,99}$/;

/**
 * SQL that takes a database built from the migrations folder to what schema.prisma describes ("" when
 * they are in sync). The folder is replayed on a throwaway in-memory PGlite shadow database; the target's
 * own data is never read or changed (a PGlite folder config is not even opened).
 * @throws MigrationError when a migration does not replay or the schema is invalid.
 */
export async function diffMigrationsToSchema(
  target: MigrationTarget,
  options: MigrateOptions = {},
): Promise<string> {
  return withSchemaEngine(target, { ...options, usesDatabase: false }, async (engine, paths) => {
    const list = await readMigrationsList(paths.migrationsDir);
    // The engine needs the lockfile to pick the connector, even for an empty folder.
    list.lockfile.content ??= LOCKFILE_CONTENT;
    const schema = await fs.promises.readFile(paths.schemaPath, "utf8");
    const result = await engine.diff({
      from: { tag: "migrations", ...list },
      to: { tag: "schemaDatamodel", files: [{ path: paths.schemaPath, content: schema }] },
      script: true,
      exitCode: true,
      filters: NO_FILTERS,
    });
    // exitCode 2 = non-empty diff, 0 = empty (stdout is then a "-- This is an empty migration." comment).
    return result.exitCode === 2 ? (result.stdout ?? "") : "";
  });
}

/**
 * Writes `<migrations>/<timestamp>_<name>/migration.sql` with the SQL from `diffMigrationsToSchema`,
 * plus `migration_lock.toml`. Writes nothing when the folder already matches schema.prisma.
 * @throws MigrationError when `name` does not match `MIGRATION_NAME`, or when diffing fails.
 */
export async function createMigration(
  target: MigrationTarget,
  name: string,
  options: MigrateOptions = {},
): Promise<CreateMigrationResult> {
  if (!MIGRATION_NAME.test(name)) {
    throw new MigrationError(
      `Invalid migration name "${name}": use letters, digits and underscores, starting with a letter.`,
    );
  }
  const sql = await diffMigrationsToSchema(target, options);
  if (sql.trim() === "") {
    return { created: false, reason: "No changes: the migrations already match prisma/schema.prisma." };
  }
  const list = await readMigrationsList(resolvePaths(options).migrationsDir);
  const folder = nextMigrationFolderName(
    name,
    list.migrationDirectories.map((d) => d.path),
  );
  const file = await writeMigration(list.baseDir, folder, sql);
  return { created: true, name: folder, file, sql };
}
