/**
 * The usage_days migration: each key's days (UsageDay) start equal to the hourly rows already stored, summed per key
 * and UTC day into requests that reached the API, getPet calls among them and 429s; on PostgreSQL and PGlite.
 */
import { describe, expect, it } from "vitest";
import { deployMigrations } from "../src/migrate/index.ts";
import { repoMigrationNames, useMigrationFixture } from "./helpers.ts";

const MIGRATION = repoMigrationNames().find((n) => n.endsWith("_usage_days"));
const KEY = "6f1d7c1e-1c2b-4d5e-8f90-a1b2c3d4e5f6";

describe.each([
  ["PostgreSQL", "postgres"],
  ["PGlite", "pglite"],
] as const)("usage_days on %s", (_label, kind) => {
  const fx = useMigrationFixture(kind, MIGRATION);

  it("sums the stored hourly rows into each key's days", async () => {
    expect(MIGRATION).toBeDefined();
    await deployMigrations(fx.db, { paths: { migrationsDir: fx.before } });
    const zeros = "ARRAY[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]";
    await fx.db.prisma.$executeRawUnsafe(
      `INSERT INTO "UsageHour" ("apiKeyId", "hour", "operation", "outcome", "requests", "latency") VALUES
       ('${KEY}', '2026-05-01 00:00', 'listPets', '2xx', 5, ${zeros}),
       ('${KEY}', '2026-05-01 23:00', 'getPet', '4xx', 3, ${zeros}),
       ('${KEY}', '2026-05-01 23:00', 'getPet', 'rate_limited_minute', 7, ${zeros}),
       ('${KEY}', '2026-05-02 00:00', 'getPet', '2xx', 2, ${zeros}),
       ('${KEY}', '2026-05-02 01:00', 'createPet', 'key_banned', 4, ${zeros})`,
    );
    await deployMigrations(fx.db, { paths: { migrationsDir: fx.all } });
    const days = await fx.db.prisma.usageDay.findMany({ orderBy: { day: "asc" } });
    expect(days.map((d) => [d.day.toISOString(), d.admitted, d.getPet, d.refused])).toEqual([
      ["2026-05-01T00:00:00.000Z", 8, 3, 7],
      ["2026-05-02T00:00:00.000Z", 2, 2, 4],
    ]);
  });
});
