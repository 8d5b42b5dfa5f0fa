/**
 * The scale data set (`seedScaleData`, behind `petstore db seed --scale`), built small on PostgreSQL: the rows
 * asked for, every busy key with one listPets/2xx row and one other row per hour up to the current hour,
 * UsageHourTotal equal to UsageHour summed over keys, audit entries naming rows that exist, a ban entry for each
 * key and day with requests refused `key_banned` (and none elsewhere), and users who carry the given password hash.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase, seedScaleData } from "../src/index.ts";
import { createMigratedPostgresDatabase } from "./helpers.ts";

describe("seedScaleData on PostgreSQL", () => {
  let db: Database;
  let drop = async () => {};
  const now = new Date("2026-06-01T10:30:00Z");

  beforeAll(async () => {
    const temp = await createMigratedPostgresDatabase();
    drop = temp.drop;
    db = await openDatabase({ kind: "postgres", url: temp.url });
  });
  afterAll(async () => {
    await db?.close();
    await drop();
  });

  it("adds the rows asked for, consistent with each other", async () => {
    const result = await seedScaleData(db.prisma, {
      now,
      passwordHash: "scrypt$test",
      animals: 2_000,
      apiKeys: 50,
      busyKeys: 5,
      days: 3,
      users: 4,
      auditEntries: 300,
    });
    const hours = 3 * 24;
    expect(result).toMatchObject({
      animals: 2_000,
      apiKeys: 50,
      usageRows: 5 * hours * 2 + hours,
      users: 4,
      auditEntries: 300,
    });
    expect(await db.prisma.pet.count()).toBe(2_036);
    const newest = await db.prisma.usageHour.findFirst({ orderBy: { hour: "desc" } });
    expect(newest?.hour.toISOString()).toBe("2026-06-01T10:00:00.000Z");
    const oldest = await db.prisma.usageHour.findFirst({ orderBy: { hour: "asc" } });
    expect(oldest?.hour.toISOString()).toBe("2026-05-29T11:00:00.000Z");

    const mismatches = await db.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM (
        SELECT "hour", "operation", "outcome", sum("requests")::int AS requests FROM "UsageHour"
        GROUP BY 1, 2, 3
      ) AS s FULL JOIN "UsageHourTotal" AS t USING ("hour", "operation", "outcome")
      WHERE s.requests IS DISTINCT FROM t."requests"`;
    expect(mismatches[0]?.n).toBe(0);

    const orphans = await db.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM "AuditLog" AS a
      WHERE (a."entityType" = 'pet' AND NOT EXISTS (SELECT 1 FROM "Pet" WHERE "id"::text = a."entityId"))
         OR (a."entityType" = 'apiKey' AND NOT EXISTS (SELECT 1 FROM "ApiKey" WHERE "id"::text = a."entityId"))`;
    expect(orphans[0]?.n).toBe(0);
    const [bans] = await db.prisma.$queryRaw<{ missing: number; extra: number; total: number }[]>`
      WITH banned AS (SELECT DISTINCT "apiKeyId"::text AS key, date_trunc('day', "hour") AS day
                      FROM "UsageHour" WHERE "outcome" = 'key_banned'),
           entries AS (SELECT "entityId" AS key, date_trunc('day', "at") AS day
                       FROM "AuditLog" WHERE "action" = 'apiKey.ban' AND "actor" = 'system')
      SELECT (SELECT count(*) FROM banned AS b WHERE NOT EXISTS (
                SELECT 1 FROM entries AS e WHERE e.key = b.key AND e.day = b.day))::int AS missing,
             (SELECT count(*) FROM entries AS e WHERE NOT EXISTS (
                SELECT 1 FROM banned AS b WHERE e.key = b.key AND e.day = b.day))::int AS extra,
             (SELECT count(*) FROM "AuditLog" WHERE "action" = 'apiKey.ban')::int AS total`;
    expect(result.bans).toBeGreaterThan(0);
    expect(bans).toEqual({ missing: 0, extra: 0, total: result.bans });
    const users = await db.prisma.user.findMany({ select: { passwordHash: true, role: true } });
    expect(users.every((u) => u.passwordHash === "scrypt$test")).toBe(true);
    expect(users.filter((u) => u.role === "admin")).toHaveLength(4);
  });
});
