/**
 * Prisma client factory. PostgreSQL through @prisma/adapter-pg when the config names a URL, else an
 * embedded PGlite database in a folder (created on first use; `memory://` keeps it in memory). Callers own the returned handle and
 * must `close()` it.
 */
import fs from "node:fs";
import type { PGlite } from "@electric-sql/pglite";
import { type DatabaseConfig, type DatabasePoolConfig, DEFAULT_DATABASE_POOL } from "@petstore/config";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { type Prisma, PrismaClient } from "./generated/prisma/client.ts";
import { inQuerySpan } from "./tracing.ts";

export type { DatabaseConfig };

/** An open database: the Prisma client plus what is needed to run migrations against the same store. */
export interface Database {
  prisma: PrismaClient;
  config: DatabaseConfig;
  /** The embedded PGlite instance, when `config.kind === "pglite"` (migrations reuse its single connection). */
  pglite?: PGlite;
  /**
   * Runs one raw statement (`Prisma.sql`, committed on its own) and resolves with its rows, typed as `$queryRaw`
   * types the columns the hot path selects: int8 as bigint, timestamp (without time zone, as Prisma stores
   * DateTime) as a Date in UTC, text and int4 as node-postgres reads them. On PostgreSQL the statement goes to the
   * pool behind the adapter directly: a raw statement through Prisma costs two to three times node-postgres' CPU
   * (docs/performance.md "Where the time goes"), traced or not (tracing.ts). The embedded database goes through
   * `$queryRaw`.
   * @throws the driver's error (node-postgres' or Prisma's): error-translator.ts and pets/database-errors.ts read
   *   both.
   */
  queryRows<T>(query: Prisma.Sql): Promise<T[]>;
  close(): Promise<void>;
}

/** A `timestamp` column's text (UTC by Prisma's convention, e.g. `2026-11-28 05:00:00.123`) as a Date. */
const utcTimestamp = (value: string) => new Date(`${value.replace(" ", "T")}Z`);

/** Runs one raw statement and resolves with its rows (`Database["queryRows"]`). */
export type QueryRows = <T>(query: Prisma.Sql) => Promise<T[]>;

/** Type parsers of the direct statements: node-postgres' own, except those Prisma reads otherwise. */
const DIRECT_TYPES = {
  getTypeParser: (oid: number, format?: "text" | "binary") =>
    oid === pg.types.builtins.INT8
      ? BigInt
      : oid === pg.types.builtins.TIMESTAMP
        ? utcTimestamp
        : pg.types.getTypeParser(oid, format),
};

/** The client's read timeout beyond the server's statement_timeout: the server cancels first when it is alive. */
const READ_TIMEOUT_MARGIN_MS = 1000;

/**
 * The pool behind @prisma/adapter-pg, with every wait bounded (docs/operations.md "Timeouts and limits"):
 * connecting and waiting for a free connection (`connectionTimeoutMillis`), each statement on the server
 * (`statement_timeout`) and on the client (`query_timeout`), transactions left idle
 * (`idle_in_transaction_session_timeout`), and each statement's parallel workers
 * (`max_parallel_workers_per_gather`); TCP keepalive notices dead peers; idle connections are closed after
 * 30 s and every connection after 30 minutes.
 *
 * A statement the server never answered within the client's read timeout means a dead or silent connection (a
 * blackholed network, a proxy that dropped it): pg would keep queueing later statements behind it, and a
 * transaction's release would return it to the pool as healthy. So its connection is dropped, and so is every
 * connection idle at that moment, which was opened to the same dead peer in all likelihood: the pool opens fresh
 * ones on demand, and the instance serves again one read timeout after the database answers again.
 */
export function createPool(url: string, limits: DatabasePoolConfig): pg.Pool {
  const idle = new Set<pg.PoolClient>();
  const drop = (client: pg.Client) => client.connection.stream.destroy();

  class BoundedClient extends pg.Client {
    // biome-ignore lint/suspicious/noExplicitAny: pg's query() has a dozen overloads; this forwards them all.
    override query(...args: any[]): any {
      const query = super.query as (...a: unknown[]) => unknown;
      const onTimeout = (error: unknown) => {
        if ((error as Error | undefined)?.message !== "Query read timeout") return;
        drop(this);
        for (const client of idle) drop(client);
      };
      const callback = typeof args.at(-1) === "function" ? args.pop() : undefined;
      if (callback) {
        return query.apply(this, [
          ...args,
          (error: Error | undefined, result: unknown) => {
            if (error) onTimeout(error);
            callback(error, result);
          },
        ]);
      }
      const result = query.apply(this, args) as Promise<unknown> | undefined;
      if (result && typeof result.then === "function") result.then(undefined, onTimeout);
      return result;
    }
  }

  const pool = new pg.Pool({
    connectionString: url,
    Client: BoundedClient,
    max: limits.size,
    connectionTimeoutMillis: limits.connectTimeoutMs,
    statement_timeout: limits.statementTimeoutMs,
    query_timeout: limits.statementTimeoutMs + READ_TIMEOUT_MARGIN_MS,
    idle_in_transaction_session_timeout: limits.idleInTransactionTimeoutMs,
    options: `-c max_parallel_workers_per_gather=${limits.maxParallelWorkersPerGather}`,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    idleTimeoutMillis: 30_000,
    maxLifetimeSeconds: 1800,
  });
  pool.on("acquire", (client) => idle.delete(client));
  pool.on("release", (error, client) => {
    if (!error) idle.add(client);
  });
  pool.on("remove", (client) => idle.delete(client));
  // An idle connection that breaks is dropped by the pool; without a listener the error would end the process.
  pool.on("error", () => undefined);
  return pool;
}

/**
 * Opens the database `config` describes. PGlite folders are created when missing and held by this process until
 * `close()`.
 * @throws EnvironmentStateError when the PGlite folder is open in another process.
 */
export async function openDatabase(config: DatabaseConfig): Promise<Database> {
  if (config.kind === "postgres") {
    const limits = config.pool ?? DEFAULT_DATABASE_POOL;
    const pool = createPool(config.url, limits);
    const prisma = new PrismaClient({
      adapter: new PrismaPg(pool, { disposeExternalPool: true }),
      // An interactive transaction waits for a connection as long as a connection may take, and runs for at
      // most two statements' time (docs/operations.md "Timeouts and limits"); past either bound Prisma answers
      // P2028, which is 503.
      transactionOptions: { maxWait: limits.connectTimeoutMs, timeout: 2 * limits.statementTimeoutMs },
    });
    return {
      prisma,
      config,
      queryRows: <T>(query: Prisma.Sql) =>
        inQuerySpan(query.text, async () => {
          const result = await pool.query({ text: query.text, values: query.values, types: DIRECT_TYPES });
          return result.rows as T[];
        }),
      close: async () => {
        await prisma.$disconnect();
        await pool.end().catch(() => undefined);
      },
    };
  }
  // Loaded only when used: a PostgreSQL deployment never carries PGlite's WebAssembly build.
  const [{ PGlite }, { PrismaPGlite }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("pglite-prisma-adapter"),
  ]);
  const { pglite, close } = await openPGlite(PGlite, config.dir);
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
  return {
    prisma,
    config,
    pglite,
    queryRows: <T>(query: Prisma.Sql) => prisma.$queryRaw<T[]>(query),
    close: async () => {
      await prisma.$disconnect();
      await close();
    },
  };
}

/**
 * Opens the embedded database in folder `dir` (created when missing; `memory://` is in memory), holding the
 * folder's lock (data-dir-lock.ts) until `close()`. `pgliteClass` is PGlite, passed in by callers that load it on
 * demand (a PostgreSQL deployment never loads PGlite's WebAssembly build).
 * @throws EnvironmentStateError when another process (or another opener in this one) has the folder open.
 */
export async function openPGlite(
  pgliteClass: typeof PGlite,
  dir: string,
): Promise<{ pglite: PGlite; close(): Promise<void> }> {
  if (dir.startsWith("memory://")) {
    const pglite = await pgliteClass.create(dir);
    const close = async () => {
      if (!pglite.closed) await pglite.close();
    };
    return { pglite, close };
  }
  fs.mkdirSync(dir, { recursive: true });
  const { lockDataDir } = await import("./data-dir-lock.ts");
  const release = await lockDataDir(dir);
  let pglite: PGlite;
  try {
    pglite = await pgliteClass.create(dir);
  } catch (error) {
    await release();
    throw error;
  }
  return {
    pglite,
    close: async () => {
      try {
        if (!pglite.closed) await pglite.close();
      } finally {
        await release().catch(() => undefined);
      }
    },
  };
}
