/**
 * The migration that replaces the daily usage rows by hourly analytics rows (docs/contract.md section 4, "Usage
 * and analytics") carries every stored daily figure over: getPet calls as getPet/2xx, the other admitted
 * requests as other/2xx, 429s as other/rate_limited, at the day's first hour; nothing is lost.
 */
import { describe, expect, it } from "vitest";
import { deployMigrations } from "../src/migrate/index.ts";
import { repoMigrationNames, useMigrationFixture } from "./helpers.ts";

const MIGRATION = repoMigrationNames().find((n) => n.endsWith("_usage_hours"));
const KEY = "6f1d7c1e-1c2b-4d5e-8f90-a1b2c3d4e5f6";

describe.each([
  ["PostgreSQL", "postgres"],
  ["PGlite", "pglite"],
] as const)("usage_hours on %s", (_label, kind) => {
  const fx = useMigrationFixture(kind, MIGRATION);

  it("carries the daily rows over as hourly rows", async () => {
    expect(MIGRATION).toBeDefined();
    await deployMigrations(fx.db, { paths: { migrationsDir: fx.before } });
    await fx.db.prisma.$executeRawUnsafe(
      `INSERT INTO "ApiKeyUsage" ("apiKeyId", "day", "requests", "rateLimited", "bans", "deprecatedGet")
       VALUES ('${KEY}', '2026-05-01', 50, 4, 1, 7), ('${KEY}', '2026-05-02', 3, 0, 0, 0)`,
    );
    await deployMigrations(fx.db, { paths: { migrationsDir: fx.all } });
    const rows = await fx.db.prisma.usageHour.findMany({
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
