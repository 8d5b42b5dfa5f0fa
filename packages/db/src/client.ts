/**
 * Prisma client factory. PostgreSQL through @prisma/adapter-pg when the config names a URL, else an
 * embedded PGlite database in a folder (created on first use; `memory://` keeps it in memory). Callers own the returned handle and
 * must `close()` it.
 */
import fs from "node:fs";
import type { PGlite } from "@electric-sql/pglite";
import type { DatabaseConfig } from "@petstore/config";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client.ts";

export type { DatabaseConfig };

/** An open database: the Prisma client plus what is needed to run migrations against the same store. */
export interface Database {
  prisma: PrismaClient;
  config: DatabaseConfig;
  /** The embedded PGlite instance, when `config.kind === "pglite"` (migrations reuse its single connection). */
  pglite?: PGlite;
  close(): Promise<void>;
}

/** Opens the database `config` describes. PGlite folders are created when missing. */
export async function openDatabase(config: DatabaseConfig): Promise<Database> {
  if (config.kind === "postgres") {
    const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: config.url, max: 10 }) });
    return { prisma, config, close: () => prisma.$disconnect() };
  }
  if (!config.dir.startsWith("memory://")) fs.mkdirSync(config.dir, { recursive: true });
  // Loaded only when used: a PostgreSQL deployment never carries PGlite's WebAssembly build (issue 7, RSS).
  const [{ PGlite }, { PrismaPGlite }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("pglite-prisma-adapter"),
  ]);
  const pglite = await PGlite.create(config.dir);
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
  return {
    prisma,
    config,
    pglite,
    close: async () => {
      await prisma.$disconnect();
      if (!pglite.closed) await pglite.close();
    },
  };
}
