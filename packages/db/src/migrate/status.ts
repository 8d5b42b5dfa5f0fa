/** `status`: compares the migrations folder with the database's migration history. */
import { NO_FILTERS } from "./engine.ts";
import { readMigrationsList } from "./files.ts";
import { type MigrateOptions, type MigrationTarget, withSchemaEngine } from "./target.ts";

/** The state of `target`'s migration history relative to the migrations folder. */
export interface MigrationStatus {
  /** True when every migration is applied, none failed or was edited, and the database has no unknown ones. */
  upToDate: boolean;
  /** Folder names found in the migrations folder, in order. */
  migrations: string[];
  /** Whether the database has a `_prisma_migrations` table at all. */
  hasMigrationsTable: boolean;
  /** In the folder but not applied to the database. */
  pending: string[];
  /** Applied to the database but missing from the folder. */
  unknownApplied: string[];
  /** Recorded as failed in the database (deploy refuses to run until resolved). */
  failed: string[];
  /** Applied, but migration.sql changed since (checksum mismatch). */
  edited: string[];
  /** One human-readable line per finding; a single "up to date" line when `upToDate`. */
  summary: string[];
}

/**
 * Reads `target`'s migration history and compares it with the folder. Changes nothing.
 * @throws MigrationError when the database is unreachable or the folder is unreadable.
 */
export async function migrationStatus(
  target: MigrationTarget,
  options: MigrateOptions = {},
): Promise<MigrationStatus> {
  return withSchemaEngine(target, { ...options, usesDatabase: true }, async (engine, paths) => {
    const migrationsList = await readMigrationsList(paths.migrationsDir);
    const diagnosis = await engine.diagnoseMigrationHistory({
      migrationsList,
      optInToShadowDatabase: false,
      filters: NO_FILTERS,
    });
    const history = diagnosis.history;
    const pending =
      history?.diagnostic === "databaseIsBehind" || history?.diagnostic === "historiesDiverge"
        ? history.unappliedMigrationNames
        : [];
    const unknownApplied =
      history?.diagnostic === "migrationsDirectoryIsBehind" || history?.diagnostic === "historiesDiverge"
        ? history.unpersistedMigrationNames
        : [];
    const migrations = migrationsList.migrationDirectories.map((d) => d.path);
    const status = {
      migrations,
      hasMigrationsTable: diagnosis.hasMigrationsTable,
      pending,
      unknownApplied,
      failed: diagnosis.failedMigrationNames,
      edited: diagnosis.editedMigrationNames,
    };
    const summary = describe(status);
    return {
      ...status,
      upToDate: summary.length === 0,
      summary: summary.length ? summary : [upToDateLine(migrations)],
    };
  });
}

function upToDateLine(migrations: string[]): string {
  return `Database schema is up to date (${migrations.length} migration${migrations.length === 1 ? "" : "s"}).`;
}

function describe(s: Omit<MigrationStatus, "upToDate" | "summary">): string[] {
  const lines: string[] = [];
  if (!s.hasMigrationsTable && s.migrations.length > 0)
    lines.push("The database has no migration history yet.");
  if (s.pending.length) lines.push(`Not yet applied: ${s.pending.join(", ")}. Run deploy.`);
  if (s.failed.length)
    lines.push(`Failed (fix the database, then mark it rolled back): ${s.failed.join(", ")}.`);
  if (s.edited.length) lines.push(`Edited after being applied: ${s.edited.join(", ")}.`);
  if (s.unknownApplied.length) {
    lines.push(
      `Applied to the database but missing from the migrations folder: ${s.unknownApplied.join(", ")}.`,
    );
  }
  return lines;
}
