/**
 * Resolves what to migrate (a database config, or a database the app already opened) into a schema
 * engine, and runs one operation with it.
 */
import type { DatabaseConfig } from "@petstore/config";
import type { ErrorRegistry } from "@prisma/driver-adapter-utils";
import type { Database } from "../client.ts";
import {
  type MigrationAdapter,
  pgliteMigrationAdapter,
  postgresMigrationAdapter,
  scratchMigrationAdapter,
} from "./adapters.ts";
import { createSchemaEngine, type EngineHandle, engineErrorMessage, type SchemaEngine } from "./engine.ts";
import { defaultMigrationPaths, type MigrationPaths } from "./files.ts";

/**
 * A database to migrate: a config (opened for the operation and closed after), or an open `Database`
 * (an embedded PGlite is reused, never opened twice; PostgreSQL gets its own short-lived connection).
 */
export type MigrationTarget = DatabaseConfig | Database;

/** Optional settings shared by the migration functions. */
export interface MigrateOptions {
  /** Override schema.prisma / the migrations folder (defaults: repo-root `prisma/`). */
  paths?: Partial<MigrationPaths>;
  /** Receives the schema engine's log lines (default: dropped). */
  log?: (line: string) => void;
  /**
   * How an operator runs the `petstore` command where this build runs, for the fixes start-up checks name:
   * `npm run petstore --` in the repository (the default), `node cli.js` in the production folder.
   */
  command?: string;
}

/** Raised for migration failures; `code` is Prisma's error code (e.g. `P3009`) when the engine gave one. */
export class MigrationError extends Error {
  constructor(
    message: string,
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "MigrationError";
  }
}

function isDatabase(target: MigrationTarget): target is Database {
  return "prisma" in target && "config" in target;
}

async function adapterFor(target: MigrationTarget, usesDatabase: boolean): Promise<MigrationAdapter> {
  const config = isDatabase(target) ? target.config : target;
  // Diff-only work never needs the target's data: don't open a PGlite folder a running app may hold.
  if (!usesDatabase && config.kind === "pglite" && !isDatabase(target)) return scratchMigrationAdapter();
  if (config.kind === "postgres") return postgresMigrationAdapter(config.url);
  if (isDatabase(target)) {
    if (!target.pglite) throw new MigrationError("The open PGlite database has no `pglite` handle");
    return pgliteMigrationAdapter({ db: target.pglite });
  }
  return pgliteMigrationAdapter({ dir: config.dir });
}

/** Turns an engine rejection into a MigrationError with a readable message and Prisma's error code. */
export function toMigrationError(error: unknown, handle?: EngineHandle): MigrationError {
  if (error instanceof MigrationError) return error;
  const message = engineErrorMessage(error, handle?.errorRegistry);
  const code = (error as { code?: unknown } | undefined)?.code;
  return new MigrationError(message, typeof code === "string" ? code : undefined, { cause: error });
}

/** The schema and migrations paths `options` selects (repo-root `prisma/` by default). */
export function resolvePaths(options: MigrateOptions): MigrationPaths {
  return { ...defaultMigrationPaths(), ...options.paths };
}

/**
 * Runs `fn` with a schema engine bound to `target`, then frees the engine and closes what was opened.
 * With `usesDatabase: false` (diffs, which only use the shadow database) a PGlite folder config is
 * replaced by an in-memory database.
 * @throws MigrationError for engine failures (the original error is its `cause`).
 */
export async function withSchemaEngine<T>(
  target: MigrationTarget,
  options: MigrateOptions & { usesDatabase: boolean },
  fn: (engine: SchemaEngine, paths: MigrationPaths, errorRegistry: ErrorRegistry) => Promise<T>,
): Promise<T> {
  const paths = resolvePaths(options);
  // Outside the try: a folder another process holds is refused as it is (a ConfigError), not as a MigrationError.
  const adapter = await adapterFor(target, options.usesDatabase);
  let handle: EngineHandle | undefined;
  try {
    handle = await createSchemaEngine(paths.schemaPath, adapter.factory, options.log);
    return await fn(handle.engine, paths, handle.errorRegistry);
  } catch (error) {
    throw toMigrationError(error, handle);
  } finally {
    handle?.engine.free();
    await adapter.close();
  }
}
