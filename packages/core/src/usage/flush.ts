/**
 * Database side of request analytics (docs/contract.md section 4, "Usage and analytics"): the batched
 * additive upsert of UsageHour rows that every instance runs once per flush, the reset of a key's hours, and
 * the retention purge. Each statement keeps UsageHourTotal (the whole API's sums per hour) equal to UsageHour
 * summed over keys, and UsageDay (each key's sums per UTC day) equal to UsageHour summed over each key's day.
 */
import { Prisma, type PrismaClient } from "@petstore/db";
import { LATENCY_BUCKETS } from "./histogram.ts";
import type { UsageHourRow } from "./recorder.ts";
import { ADMITTED, DENIED } from "./rows.ts";

/**
 * UsageDay's sums of `requests` by a row's `outcome` and `operation` (column names), as the select list
 * `admitted, getPet, refused`.
 */
function daySums(outcome: string, operation: string, requests: string): Prisma.Sql {
  const [c, o, n] = [outcome, operation, requests].map((col) => Prisma.raw(col));
  const admitted = Prisma.sql`${c} IN (${Prisma.join([...ADMITTED])})`;
  return Prisma.sql`
    coalesce(sum(${n}) FILTER (WHERE ${admitted}), 0)::int AS "admitted",
    coalesce(sum(${n}) FILTER (WHERE ${admitted} AND ${o} = 'getPet'), 0)::int AS "getPet",
    coalesce(sum(${n}) FILTER (WHERE ${c} IN (${Prisma.join([...DENIED])})), 0)::int AS "refused"`;
}

const latencyAt = (table: string) =>
  Prisma.raw(
    `ARRAY(SELECT coalesce(u.a, 0) + coalesce(u.b, 0)
           FROM unnest("${table}"."latency", EXCLUDED."latency") WITH ORDINALITY AS u(a, b, i) ORDER BY u.i)`,
  );

const LATENCY_SUMS = Prisma.raw(
  `ARRAY[${Array.from({ length: LATENCY_BUCKETS }, (_, i) => `coalesce(sum(l[${i + 1}]), 0)::int`).join(", ")}]`,
);

/**
 * Returns the recorder's writer: adds `rows` to the stored rows in ONE statement (INSERT ... SELECT FROM
 * unnest(...) ON CONFLICT DO UPDATE adding requests and latency buckets), so instances sharing the database
 * add up; the same statement adds their sums per hour, operation and outcome to UsageHourTotal (the whole
 * API's figures), and each key's sums per day to UsageDay. Row keys in one batch are distinct (the recorder merges
 * them). The upserts take their rows in key order, so two instances flushing at once lock shared rows in the same
 * order.
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
      WITH batch AS (
        SELECT r.k::uuid AS k, r.h::timestamp(3) AS h, r.o AS o, r.c AS c, r.n AS n,
               (${latency}::int[])[(r.i - 1) * ${LATENCY_BUCKETS} + 1 : r.i * ${LATENCY_BUCKETS}] AS l
        FROM unnest(${keys}::text[], ${hours}::text[], ${operations}::text[], ${outcomes}::text[], ${counts}::int[])
             WITH ORDINALITY AS r(k, h, o, c, n, i)
      ),
      per_key AS (
        INSERT INTO "UsageHour" ("apiKeyId", "hour", "operation", "outcome", "requests", "latency")
        SELECT k, h, o, c, n, l FROM batch ORDER BY k, h, o, c
        ON CONFLICT ("apiKeyId", "hour", "operation", "outcome") DO UPDATE SET
          "requests" = "UsageHour"."requests" + EXCLUDED."requests",
          "latency" = ${latencyAt("UsageHour")}
      ),
      per_day AS (
        INSERT INTO "UsageDay" ("apiKeyId", "day", "admitted", "getPet", "refused")
        SELECT k, date_trunc('day', h), ${daySums("c", "o", "n")}
        FROM batch GROUP BY k, date_trunc('day', h) ORDER BY 1, 2
        ON CONFLICT ("apiKeyId", "day") DO UPDATE SET
          "admitted" = "UsageDay"."admitted" + EXCLUDED."admitted",
          "getPet" = "UsageDay"."getPet" + EXCLUDED."getPet",
          "refused" = "UsageDay"."refused" + EXCLUDED."refused"
      )
      INSERT INTO "UsageHourTotal" ("hour", "operation", "outcome", "requests", "latency")
      SELECT h, o, c, sum(n)::int, ${LATENCY_SUMS} FROM batch GROUP BY h, o, c ORDER BY h, o, c
      ON CONFLICT ("hour", "operation", "outcome") DO UPDATE SET
        "requests" = "UsageHourTotal"."requests" + EXCLUDED."requests",
        "latency" = ${latencyAt("UsageHourTotal")}`;
  };
}

/**
 * Deletes a key's analytics rows of hours from `since` (Unix ms) on and takes them off the whole API's sums
 * (UsageHourTotal) and the key's days (UsageDay), in one statement; run it in the caller's transaction.
 */
export async function deleteKeyHours(
  tx: Pick<PrismaClient, "$executeRaw">,
  keyId: string,
  since: number,
): Promise<void> {
  await tx.$executeRaw`
    WITH gone AS (
      DELETE FROM "UsageHour"
      WHERE "apiKeyId" = ${keyId}::uuid AND "hour" >= ${new Date(since).toISOString()}::timestamp(3)
      RETURNING "hour", "operation", "outcome", "requests", "latency"
    ),
    days AS (
      UPDATE "UsageDay" AS d SET
        "admitted" = d."admitted" - g."admitted",
        "getPet" = d."getPet" - g."getPet",
        "refused" = d."refused" - g."refused"
      FROM (SELECT date_trunc('day', "hour") AS "day", ${daySums('"outcome"', '"operation"', '"requests"')}
            FROM gone GROUP BY 1) AS g
      WHERE d."apiKeyId" = ${keyId}::uuid AND d."day" = g."day"
    )
    UPDATE "UsageHourTotal" AS t SET
      "requests" = t."requests" - g."requests",
      "latency" = ARRAY(SELECT coalesce(u.a, 0) - coalesce(u.b, 0)
                        FROM unnest(t."latency", g."latency") WITH ORDINALITY AS u(a, b, i) ORDER BY u.i)
    FROM gone AS g
    WHERE t."hour" = g."hour" AND t."operation" = g."operation" AND t."outcome" = g."outcome"`;
}

/**
 * Deletes analytics rows of hours that began more than `days` days before `now` (ANALYTICS_RETENTION_DAYS,
 * default 90), the whole API's sums of those hours with them, and the keys' days before the first hour kept; the
 * day holding that hour loses the sums of the hours deleted from it (only the rows this statement deleted, so
 * instances purging at once take each hour off once). Safe to run on several instances at once.
 * @returns how many hourly rows (per key) were deleted.
 */
export async function purgeAnalyticsOlderThan(
  prisma: PrismaClient,
  now: Date,
  days: number,
): Promise<number> {
  const cutoff = Prisma.sql`${new Date(now.getTime() - days * 86_400_000).toISOString()}::timestamp(3)`;
  const [row] = await prisma.$queryRaw<{ n: number }[]>`
    WITH totals AS (DELETE FROM "UsageHourTotal" WHERE "hour" < ${cutoff}),
    gone AS (
      DELETE FROM "UsageHour" WHERE "hour" < ${cutoff}
      RETURNING "apiKeyId", "hour", "operation", "outcome", "requests"
    ),
    days AS (DELETE FROM "UsageDay" WHERE "day" < date_trunc('day', ${cutoff})),
    cut AS (
      UPDATE "UsageDay" AS d SET
        "admitted" = d."admitted" - g."admitted",
        "getPet" = d."getPet" - g."getPet",
        "refused" = d."refused" - g."refused"
      FROM (SELECT "apiKeyId" AS k, ${daySums('"outcome"', '"operation"', '"requests"')}
            FROM gone WHERE "hour" >= date_trunc('day', ${cutoff}) GROUP BY 1) AS g
      WHERE d."apiKeyId" = g.k AND d."day" = date_trunc('day', ${cutoff})
    )
    SELECT count(*)::int AS n FROM gone`;
  return row?.n ?? 0;
}
