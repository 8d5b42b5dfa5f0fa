/**
 * Driver-adapter factories for the schema engine, with two adapter bugs worked around:
 * - @prisma/adapter-pg 7.10 `executeScript` splits the script on `;` (breaks `$$` bodies and `;` inside
 *   literals, and is not atomic). Here the whole script goes to the server as ONE simple-protocol query,
 *   which PostgreSQL runs as a single implicit transaction.
 * - pglite-prisma-adapter 0.7.2 `executeScript` does not await `exec()`, so a failing migration would be
 *   recorded as applied. Here the script is awaited, inside an explicit transaction.
 * The shadow database (used to replay migrations when diffing) is always a throwaway in-memory PGlite.
 */
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import {
  DriverAdapterError,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { openPGlite } from "../client.ts";

/** A factory plus the clean-up that releases whatever it opened. */
export interface MigrationAdapter {
  factory: SqlMigrationAwareDriverAdapterFactory;
  /** Closes connections/instances this adapter opened (never a PGlite instance passed in by the caller). */
  close(): Promise<void>;
}

interface PgLikeError {
  code: string;
  severity?: string;
  message: string;
  detail?: string;
  column?: string;
  hint?: string;
}

function isPgError(error: unknown): error is PgLikeError {
  return error instanceof Error && typeof (error as { code?: unknown }).code === "string";
}

/** Re-throws a PostgreSQL error as a DriverAdapterError so the engine reports its code and message. */
function rethrowAsDriverError(error: unknown): never {
  if (isPgError(error) && /^[0-9A-Z]{5}$/.test(error.code)) {
    throw new DriverAdapterError({
      kind: "postgres",
      code: error.code,
      severity: error.severity ?? "ERROR",
      message: error.message,
      detail: error.detail,
      column: error.column,
      hint: error.hint,
    });
  }
  throw error;
}

/** Returns `adapter` with `executeScript` replaced by `run` (everything else delegates). */
function withScriptRunner(
  adapter: SqlDriverAdapter,
  run: (script: string) => Promise<void>,
): SqlDriverAdapter {
  const wrapped: SqlDriverAdapter = {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (query) => adapter.queryRaw(query),
    executeRaw: (query) => adapter.executeRaw(query),
    startTransaction: (isolationLevel) => adapter.startTransaction(isolationLevel),
    dispose: () => adapter.dispose(),
    executeScript: async (script) => {
      try {
        await run(script);
      } catch (error) {
        rethrowAsDriverError(error);
      }
    },
  };
  const info = adapter.getConnectionInfo?.bind(adapter);
  if (info) wrapped.getConnectionInfo = info;
  return wrapped;
}

/** Wraps a PGlite instance for the engine; scripts run awaited, in one transaction. */
function pgliteAdapter(db: PGlite): Promise<SqlDriverAdapter> {
  return new PrismaPGlite(db).connect().then((adapter) =>
    withScriptRunner(adapter, async (script) => {
      await db.transaction(async (tx) => {
        await tx.exec(script);
      });
    }),
  );
}

/** The data folder of a just-initialised in-memory PGlite, taken from the process's first shadow database. */
let pristineDataDir: Promise<Blob> | undefined;

/**
 * A fresh, empty in-memory PGlite. Most of a start is initdb: the process's first one runs it and its data folder
 * is copied at once, untouched; later ones load that copy, which takes a fraction of the time (a diff is mostly
 * a shadow database's start, and `migrate create` diffs twice).
 * @throws when PGlite fails to start.
 */
async function createShadowPglite(): Promise<PGlite> {
  if (pristineDataDir) {
    const image = await pristineDataDir.catch(() => undefined);
    if (image) return PGlite.create({ loadDataDir: image });
  }
  const db = await PGlite.create();
  if (!pristineDataDir) {
    pristineDataDir = db.dumpDataDir("none");
    await pristineDataDir.catch(() => {
      pristineDataDir = undefined;
    });
  }
  return db;
}

/**
 * Opens a fresh in-memory PGlite as a shadow database. Disposing the returned adapter closes it.
 * @throws when PGlite fails to start.
 */
export async function connectShadowPglite(): Promise<SqlDriverAdapter> {
  const db = await createShadowPglite();
  const adapter = await pgliteAdapter(db);
  return {
    ...adapter,
    dispose: async () => {
      if (!db.closed) await db.close();
    },
  };
}

/**
 * Adapter factory for a PostgreSQL server at `url`. Uses one pooled connection (so the engine's advisory
 * lock and its queries share a session); `close()` ends the pool. Connects lazily.
 */
export function postgresMigrationAdapter(url: string): MigrationAdapter {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on("error", () => {}); // an idle connection dropping must not crash the process
  const inner = new PrismaPg(pool);
  const factory: SqlMigrationAwareDriverAdapterFactory = {
    provider: "postgres",
    adapterName: inner.adapterName,
    connect: async () =>
      withScriptRunner(await inner.connect(), async (script) => {
        await pool.query(script); // no parameters: simple query protocol, one implicit transaction
      }),
    connectToShadowDb: connectShadowPglite,
  };
  return { factory, close: () => pool.end() };
}

/**
 * Adapter factory for an embedded PGlite database: an already-open instance (left open by `close()`), or the
 * folder `dir`, opened at once as the app opens it (under its lock, so never beside a running server) and closed
 * by `close()`.
 * @throws EnvironmentStateError when the folder is open in another process.
 */
export async function pgliteMigrationAdapter(
  source: { db: PGlite } | { dir: string },
): Promise<MigrationAdapter> {
  const { pglite, close } =
    "db" in source ? { pglite: source.db, close: async () => {} } : await openPGlite(PGlite, source.dir);
  const factory: SqlMigrationAwareDriverAdapterFactory = {
    provider: "postgres",
    adapterName: "pglite-prisma-adapter",
    connect: () => pgliteAdapter(pglite),
    connectToShadowDb: connectShadowPglite,
  };
  return { factory, close };
}

/**
 * Adapter factory for work that only needs a shadow database (diffs): one throwaway in-memory PGlite
 * serves as both the engine's main connection (never written) and its shadow database, saving a boot.
 */
export function scratchMigrationAdapter(): MigrationAdapter {
  let opened: Promise<PGlite> | undefined;
  const instance = (): Promise<PGlite> => {
    opened ??= createShadowPglite();
    return opened;
  };
  const factory: SqlMigrationAwareDriverAdapterFactory = {
    provider: "postgres",
    adapterName: "pglite-prisma-adapter",
    connect: async () => pgliteAdapter(await instance()),
    // Disposing the shadow connection must not close the instance the main connection still uses.
    connectToShadowDb: async () => ({ ...(await pgliteAdapter(await instance())), dispose: async () => {} }),
  };
  return {
    factory,
    close: async () => {
      const db = await opened;
      if (db && !db.closed) await db.close();
    },
  };
}
