/**
 * What the apps may do with the database as a whole, through the runtime (they never hold the Prisma
 * client: docs/architecture.md, "Layers"): check that it answers, seed reference and demo data, count
 * what the metrics report. The open `Database` of each runtime is also kept here for `@petstore/core/testing`.
 */
import type { Database, SeedResult } from "@petstore/db";
import { seedDatabase } from "@petstore/db";

export type { SeedResult };

/** The runtime's database operations. */
export interface DatabaseOperations {
  /**
   * Resolves when the database answers a trivial query (`SELECT 1`); no timeout of its own (callers race it).
   * @throws the driver's error when the database is unreachable.
   */
  health(): Promise<void>;
  /**
   * Makes sure the four plans and the six categories exist and, on an empty Pet table only, adds the demo
   * pets; idempotent, safe from several processes at once (advisory lock).
   * @returns row counts after seeding: `{plans, categories, pets, petsCreated}`.
   */
  seed(): Promise<SeedResult>;
}

/** The operations on `db`. */
export function databaseOperations(db: Database): DatabaseOperations {
  return {
    async health() {
      await db.prisma.$queryRaw`SELECT 1`;
    },
    seed: () => seedDatabase(db.prisma),
  };
}

const opened = new WeakMap<object, Database>();

/** Records that `runtime` owns `db` (for tests that inspect or break the database directly). */
export function registerDatabase(runtime: object, db: Database): void {
  opened.set(runtime, db);
}

/**
 * The open database of a runtime made by `openRuntime`.
 * @throws Error when `runtime` did not come from `openRuntime` in this process.
 */
export function databaseOf(runtime: object): Database {
  const db = opened.get(runtime);
  if (!db) throw new Error("not a runtime opened by openRuntime in this process");
  return db;
}
