/**
 * Database side of request analytics (docs/contract.md section 4, "Usage and analytics"): the batched
 * additive upsert of UsageHour rows that every instance runs once per flush, and the retention purge.
 */
import type { PrismaClient } from "@petstore/db";
import { LATENCY_BUCKETS } from "./histogram.ts";
import type { UsageHourRow } from "./recorder.ts";

/**
 * Returns the recorder's writer: adds `rows` to the stored rows in ONE statement (INSERT ... SELECT FROM
 * unnest(...) ON CONFLICT DO UPDATE adding requests and latency buckets), so instances sharing the database
 * add up. Row keys in one batch are distinct (the recorder merges them).
 * @throws the database error; nothing is written then.
 */
export function usageHourWriter(prisma: PrismaClient) {
  return async (rows: UsageHourRow[]): Promise<void> => {
    if (rows.length === 0) return;
    const keys = rows.map((r) => r.apiKeyId);
    const hours = rows.map((r) => new Date(r.hour).toISOString());
    const operations = rows.map((r) => r.operation);
    const outcomes = rows.map((r) => r.outcome);
    const counts = rows.map((r) => r.requests);
    const latency = rows.flatMap((r) => Array.from({ length: LATENCY_BUCKETS }, (_, i) => r.latency[i] ?? 0));
    await prisma.$executeRaw`
      INSERT INTO "UsageHour" ("apiKeyId", "hour", "operation", "outcome", "requests", "latency")
      SELECT r.k::uuid, r.h::timestamp(3), r.o, r.c, r.n,
             (${latency}::int[])[(r.i - 1) * ${LATENCY_BUCKETS} + 1 : r.i * ${LATENCY_BUCKETS}]
      FROM unnest(${keys}::text[], ${hours}::text[], ${operations}::text[], ${outcomes}::text[], ${counts}::int[])
           WITH ORDINALITY AS r(k, h, o, c, n, i)
      ON CONFLICT ("apiKeyId", "hour", "operation", "outcome") DO UPDATE SET
        "requests" = "UsageHour"."requests" + EXCLUDED."requests",
        "latency" = ARRAY(
          SELECT coalesce(u.a, 0) + coalesce(u.b, 0)
          FROM unnest("UsageHour"."latency", EXCLUDED."latency") WITH ORDINALITY AS u(a, b, i)
          ORDER BY u.i
        )`;
  };
}

/**
 * Deletes analytics rows of hours that began more than `days` days before `now` (ANALYTICS_RETENTION_DAYS,
 * default 90). Safe to run on several instances at once.
 * @returns how many hourly rows were deleted.
 */
export async function purgeAnalyticsOlderThan(
  prisma: PrismaClient,
  now: Date,
  days: number,
): Promise<number> {
  const cutoff = new Date(now.getTime() - days * 86_400_000);
  const { count } = await prisma.usageHour.deleteMany({ where: { hour: { lt: cutoff } } });
  return count;
}
