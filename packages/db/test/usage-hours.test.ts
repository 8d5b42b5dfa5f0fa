/**
 * The migration that replaces the daily usage rows by hourly analytics rows (docs/contract.md section 4, "Usage
 * and analytics") carries every stored daily figure over: getPet calls as getPet/2xx, the other admitted
 * requests as other/2xx, 429s as other/rate_limited, at the day's first hour; nothing is lost.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../src/index.ts";
import { deployMigrations } from "../src/migrate/index.ts";
import { copyMigrations, createTempPostgresDatabase, repoMigrationNames, tempDir } from "./helpers.ts";

const MIGRATION = repoMigrationNames().find((n) => n.endsWith("_usage_hours"));
const KEY = "6f1d7c1e-1c2b-4d5e-8f90-a1b2c3d4e5f6";

describe.each([
  ["PostgreSQL", "postgres"],
  ["PGlite", "pglite"],
] as const)("usage_hours on %s", (_label, kind) => {
  let db: Database;
  let drop = async () => {};
  const tmp = tempDir("usage-hours");
  const before = path.join(tmp.dir, "before");
  const all = path.join(tmp.dir, "all");

  beforeAll(async () => {
    if (kind === "postgres") {
      const temp = await createTempPostgresDatabase();
      db = await openDatabase({ kind: "postgres", url: temp.url });
      drop = temp.drop;
    } else {
      db = await openDatabase({ kind: "pglite", dir: "memory://" });
    }
    copyMigrations(all);
    copyMigrations(before);
    for (const name of repoMigrationNames().filter((n) => MIGRATION && n >= MIGRATION))
      fs.rmSync(path.join(before, name), { recursive: true });
  });
  afterAll(async () => {
    await db?.close();
    await drop();
    tmp.remove();
  });

  it("carries the daily rows over as hourly rows", async () => {
    expect(MIGRATION).toBeDefined();
    await deployMigrations(db, { paths: { migrationsDir: before } });
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO "ApiKeyUsage" ("apiKeyId", "day", "requests", "rateLimited", "bans", "deprecatedGet")
       VALUES ('${KEY}', '2026-05-01', 50, 4, 1, 7), ('${KEY}', '2026-05-02', 3, 0, 0, 0)`,
    );
    await deployMigrations(db, { paths: { migrationsDir: all } });
    const rows = await db.prisma.usageHour.findMany({
      orderBy: [{ hour: "asc" }, { operation: "asc" }, { outcome: "asc" }],
    });
    expect(
      rows.map((r) => [r.hour.toISOString(), r.operation, r.outcome, r.requests, r.latency.length]),
    ).toEqual([
      ["2026-05-01T00:00:00.000Z", "getPet", "2xx", 7, 14],
      ["2026-05-01T00:00:00.000Z", "other", "2xx", 43, 14],
      ["2026-05-01T00:00:00.000Z", "other", "rate_limited", 4, 14],
      ["2026-05-02T00:00:00.000Z", "other", "2xx", 3, 14],
    ]);
  });
});
