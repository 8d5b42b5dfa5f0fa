/**
 * The dashboard_at_scale migration (docs/architecture.md, "Where dashboard figures are computed"): the whole
 * API's hourly sums (UsageHourTotal) start equal to the hourly rows already stored, summed over keys, latency
 * buckets included; the name search gets its trigram index where the server has pg_trgm (PostgreSQL here)
 * and none on the embedded PGlite, which has no pg_trgm, and both migrate cleanly.
 */
import { describe, expect, it } from "vitest";
import { deployMigrations } from "../src/migrate/index.ts";
import { repoMigrationNames, useMigrationFixture } from "./helpers.ts";

const MIGRATION = repoMigrationNames().find((n) => n.endsWith("_dashboard_at_scale"));
const KEYS = ["6f1d7c1e-1c2b-4d5e-8f90-a1b2c3d4e5f6", "00000000-0000-0000-0000-000000000000"];

describe.each([
  ["PostgreSQL", "postgres"],
  ["PGlite", "pglite"],
] as const)("dashboard_at_scale on %s", (_label, kind) => {
  const fx = useMigrationFixture(kind, MIGRATION);

  it("sums the stored hourly rows into the whole API's hourly figures", async () => {
    expect(MIGRATION).toBeDefined();
    await deployMigrations(fx.db, { paths: { migrationsDir: fx.before } });
    const latency = (n: number) => `ARRAY[${n}, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ${n * 2}]`;
    await fx.db.prisma.$executeRawUnsafe(
      `INSERT INTO "UsageHour" ("apiKeyId", "hour", "operation", "outcome", "requests", "latency") VALUES
       ('${KEYS[0]}', '2026-05-01 10:00', 'listPets', '2xx', 5, ${latency(2)}),
       ('${KEYS[1]}', '2026-05-01 10:00', 'listPets', '2xx', 7, ${latency(3)}),
       ('${KEYS[0]}', '2026-05-01 11:00', 'getPet', 'rate_limited', 2, ${latency(1)}),
       ('${KEYS[1]}', '2026-05-01 11:00', 'unauthenticated', '4xx', 4, ARRAY[4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])`,
    );
    await deployMigrations(fx.db, { paths: { migrationsDir: fx.all } });
    const totals = await fx.db.prisma.usageHourTotal.findMany({
      orderBy: [{ hour: "asc" }, { operation: "asc" }, { outcome: "asc" }],
    });
    expect(totals.map((t) => [t.hour.toISOString(), t.operation, t.outcome, t.requests, t.latency])).toEqual([
      ["2026-05-01T10:00:00.000Z", "listPets", "2xx", 12, [5, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10]],
      ["2026-05-01T11:00:00.000Z", "getPet", "rate_limited", 2, [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]],
      ["2026-05-01T11:00:00.000Z", "unauthenticated", "4xx", 4, [4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
    ]);
  });

  it("gives name searches a trigram index where the server has pg_trgm", async () => {
    const indexes = await fx.db.prisma.$queryRaw<{ name: string }[]>`
      SELECT indexname::text AS name FROM pg_indexes WHERE tablename = 'Pet' ORDER BY 1`;
    expect(indexes.map((i) => i.name)).toEqual(
      [
        "Pet_categoryId_id_idx",
        "Pet_name_grams_idx",
        "Pet_name_id_idx",
        ...(kind === "postgres" ? ["Pet_name_trgm_idx"] : []),
        "Pet_pkey",
        "Pet_status_id_idx",
      ].sort(),
    );
  });
});
