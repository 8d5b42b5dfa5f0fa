/**
 * The start-up check: does the database hold exactly the migrations of this build? Read with two plain queries on
 * Prisma Migrate's own table `_prisma_migrations` (no schema engine), so a PostgreSQL instance checks without
 * loading the WebAssembly engine.
 */
import { EnvironmentStateError } from "@petstore/config";
import type { Database } from "../client.ts";
import { readMigrationsList } from "./files.ts";
import { type MigrateOptions, resolvePaths } from "./target.ts";

/** How the database's migration history compares with the build's migrations folder. */
export interface MigrationCheck {
  /** In the build, not applied to the database. */
  pending: string[];
  /** Applied to the database, not in the build (a newer release migrated it). */
  unknown: string[];
  /** Started and neither finished nor rolled back (a failed deploy). */
  failed: string[];
  /** True when the database has no tables at all. */
  empty: boolean;
}

/** Raised when the database cannot be asked for its migrations (unreachable, refused, timed out). */
export class DatabaseUnreachableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DatabaseUnreachableError";
  }
}

/**
 * Compares `db`'s applied migrations with the build's migrations folder. Changes nothing.
 * @throws DatabaseUnreachableError (one line) when the database does not answer.
 */
export async function compareMigrations(db: Database, options: MigrateOptions = {}): Promise<MigrationCheck> {
  const list = await readMigrationsList(resolvePaths(options).migrationsDir);
  const inBuild = list.migrationDirectories.map((d) => d.path);
  let rows: Array<{ name: string; finished: boolean; rolledBack: boolean }> = [];
  let empty = false;
  try {
    const [table] = await db.prisma.$queryRaw<Array<{ found: boolean; tables: number }>>`
      SELECT to_regclass('_prisma_migrations') IS NOT NULL AS found,
             (SELECT count(*)::int FROM pg_tables WHERE schemaname = current_schema()) AS tables`;
    empty = table?.tables === 0;
    if (table?.found) {
      rows = await db.prisma.$queryRaw`
        SELECT migration_name AS name, finished_at IS NOT NULL AS finished,
               rolled_back_at IS NOT NULL AS "rolledBack"
        FROM _prisma_migrations`;
    }
  } catch (error) {
    // Prisma wraps the driver's words ("Raw query failed. Code: `N/A`. Message: `Can't reach ...`"): keep them.
    const last = (error instanceof Error ? error.message : String(error)).trim().split("\n").at(-1) ?? "";
    const detail = /Message: `(.+)`$/.exec(last)?.[1] ?? last;
    throw new DatabaseUnreachableError(
      `The database cannot be reached to check its migrations: ${detail || "no answer"}`,
      { cause: error },
    );
  }
  const applied = new Set(rows.filter((r) => r.finished && !r.rolledBack).map((r) => r.name));
  const failed = rows.filter((r) => !r.finished && !r.rolledBack).map((r) => r.name);
  return {
    pending: inBuild.filter((name) => !applied.has(name)),
    unknown: [...applied].filter((name) => !inBuild.includes(name)).sort(),
    failed,
    empty,
  };
}

/**
 * Refuses a database whose migrations differ from the build's: the server must not serve (and answer 500s) on a
 * schema it was not built for.
 * @throws EnvironmentStateError (exit code 2) naming what differs and the fix; DatabaseUnreachableError.
 */
export async function checkMigrations(db: Database, options: MigrateOptions = {}): Promise<void> {
  const check = await compareMigrations(db, options);
  const variable = db.config.kind === "postgres" ? "DATABASE_URL" : "PGLITE_DIR";
  const problem = describeProblem(check, options.command ?? "npm run petstore --");
  if (problem) throw new EnvironmentStateError(variable, problem);
}

const list = (names: string[]) =>
  names.length > 3 ? `${names.slice(0, 3).join(", ")} and ${names.length - 3} more` : names.join(", ");

/**
 * One line saying what is wrong and what fixes it, or undefined when the database matches the build; `command`
 * is how the operator runs the `petstore` command.
 */
function describeProblem(check: MigrationCheck, command: string): string | undefined {
  if (check.failed.length)
    return (
      `The database has a failed migration (${list(check.failed)}): fix it, then ` +
      `\`npm run db:migrate -- resolve --rolled-back <name>\` in a checkout of this release and \`${command} db migrate\` (docs/operations.md).`
    );
  if (check.unknown.length)
    return (
      `The database has migrations this build does not know (${list(check.unknown)}): ` +
      "it was migrated by a newer release; run that release, or restore a backup taken before it."
    );
  if (check.empty) return `The database is empty: run \`${command} db migrate\` before starting.`;
  if (check.pending.length)
    return (
      `The database lacks ${check.pending.length} migration(s) of this build (${list(check.pending)}): ` +
      `run \`${command} db migrate\`, or start with MIGRATE_ON_START=true.`
    );
  return undefined;
}
