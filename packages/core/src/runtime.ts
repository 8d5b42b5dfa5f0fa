/**
 * The process runtime: configuration, logger, database and domain services, opened once.
 * The web app, the CLI and the tests all start from `openRuntime`; the embedded PGlite database is
 * migrated (and its plans ensured) on open, PostgreSQL is migrated by `petstore db migrate`.
 */
import type { Config } from "@petstore/config";
import { type Database, ensurePlans, openDatabase } from "@petstore/db";
import { deployMigrations } from "@petstore/db/migrate";
import { createCore } from "./core.ts";
import type { Clock } from "./deps.ts";
import { createLogger, type Logger } from "./logger.ts";

export interface Runtime extends ReturnType<typeof createCore> {
  config: Config;
  logger: Logger;
  db: Database;
  clock: Clock;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  config: Config;
  logger?: Logger;
  clock?: Clock;
  /** Apply pending migrations on open. Default: true for PGlite, false for PostgreSQL. */
  migrate?: boolean;
}

/** Opens the database, migrates it when asked, and wires the domain services. */
export async function openRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? (() => new Date());
  const db = await openDatabase(config.database);
  try {
    if (options.migrate ?? config.database.kind === "pglite") {
      await deployMigrations(db);
      await ensurePlans(db.prisma);
    }
  } catch (error) {
    await db.close();
    throw error;
  }
  const core = createCore({ prisma: db.prisma, config, clock, logger });
  return {
    ...core,
    config,
    logger,
    db,
    clock,
    close: () => db.close(),
  };
}
