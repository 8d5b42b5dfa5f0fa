/**
 * The settings every PostgreSQL session of the pool starts with (docs/operations.md "Timeouts and limits"):
 * statements and idle transactions are bounded on the server, and a statement gets at most
 * `maxParallelWorkersPerGather` parallel workers (none by default), so one large scan cannot take every core
 * of the database host.
 */
import { type DatabasePoolConfig, DEFAULT_DATABASE_POOL } from "@petstore/config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../src/index.ts";
import type { TemporaryDatabase } from "../src/testing.ts";
import { createTempPostgresDatabase } from "./helpers.ts";

let temp: TemporaryDatabase;
beforeAll(async () => {
  temp = await createTempPostgresDatabase();
});
afterAll(() => temp?.drop());

async function withDatabase<T>(pool: DatabasePoolConfig, use: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase({ kind: "postgres", url: temp.url, pool });
  try {
    return await use(db);
  } finally {
    await db.close();
  }
}

/** The plan of a count over a table, with parallelism made as cheap as it can be for the planner. */
async function countPlan(db: Database): Promise<string> {
  return db.prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe("SET LOCAL parallel_setup_cost = 0");
    await tx.$executeRawUnsafe("SET LOCAL parallel_tuple_cost = 0");
    await tx.$executeRawUnsafe("SET LOCAL min_parallel_table_scan_size = 0");
    const rows = await tx.$queryRawUnsafe<{ "QUERY PLAN": string }[]>(
      "EXPLAIN SELECT count(*) FROM generate_series(1, 10) AS s, pg_class",
    );
    return rows.map((r) => r["QUERY PLAN"]).join("\n");
  });
}

describe("a pooled PostgreSQL session", () => {
  it("starts with the configured server-side bounds", async () => {
    const settings = await withDatabase(
      { ...DEFAULT_DATABASE_POOL, statementTimeoutMs: 2500, idleInTransactionTimeoutMs: 7000 },
      (db) =>
        db.prisma.$queryRaw<{ statement: string; idle: string; workers: string }[]>`
          SELECT current_setting('statement_timeout') AS statement,
                 current_setting('idle_in_transaction_session_timeout') AS idle,
                 current_setting('max_parallel_workers_per_gather') AS workers`,
    );
    expect(settings).toEqual([{ statement: "2500ms", idle: "7s", workers: "0" }]);
  });

  it("plans no parallel workers by default, and as many as configured", async () => {
    const serial = await withDatabase(DEFAULT_DATABASE_POOL, countPlan);
    expect(serial).not.toMatch(/Gather/);
    const parallel = await withDatabase(
      { ...DEFAULT_DATABASE_POOL, maxParallelWorkersPerGather: 2 },
      countPlan,
    );
    expect(parallel).toMatch(/Workers Planned: [12]/);
  });
});
