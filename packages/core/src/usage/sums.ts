/**
 * Usage figures summed in the database (docs/architecture.md, "Where dashboard figures are computed"): each
 * query groups the hourly rows with `GROUP BY` and hands Node one row per point of a series, never the rows
 * themselves. One key's figures come from UsageHour (its primary key starts with the key and the hour); the
 * whole API's from UsageHourTotal, which holds UsageHour summed over keys. Timestamps are UTC; every instant in
 * and out is Unix ms.
 */
import type { PlanName } from "@petstore/contracts";
import type { PrismaClient } from "@petstore/db";
import { Prisma } from "@petstore/db";
import { LATENCY_BUCKETS } from "./histogram.ts";
import { NO_KEY } from "./recorder.ts";

/** Requests and summed latency buckets of one group. */
export interface Sum {
  requests: number;
  latency: number[];
}

/** `ARRAY[sum(latency[1]), ...]` over the group, as float8 (exact below 2^53). */
const LATENCY_SUMS = Prisma.raw(
  `ARRAY[${Array.from({ length: LATENCY_BUCKETS }, (_, i) => `coalesce(sum("latency"[${i + 1}]), 0)`).join(", ")}]::float8[]`,
);

const iso = (ms: number) => new Date(ms).toISOString();

/** `FROM` and the start of `WHERE` for one key's rows, a set of keys' (an account's), or the whole API's. */
function source(keyId: string | readonly string[] | undefined): Prisma.Sql {
  if (keyId === undefined) return Prisma.sql`FROM "UsageHourTotal" WHERE`;
  return typeof keyId === "string"
    ? Prisma.sql`FROM "UsageHour" WHERE "apiKeyId" = ${keyId}::uuid AND`
    : Prisma.sql`FROM "UsageHour" WHERE "apiKeyId" = ANY(${[...keyId]}::uuid[]) AND`;
}

/** Rows of the traffic query: which grouping (`kind`) and its keys. */
interface TrafficRow {
  kind: "hour" | "day" | "operation" | "today";
  start: number | null;
  operation: string | null;
  outcome: string | null;
  requests: number;
  latency: number[] | null;
}

/** The stored sums a traffic view needs, in one statement. */
export interface StoredTraffic {
  /** Per hour start and outcome, for hours in `[hours.from, hours.to)`. */
  hourly: (Sum & { start: number; outcome: string })[];
  /** Per UTC day start and outcome, for hours in `[days.from, days.to)`. */
  daily: (Sum & { start: number; outcome: string })[];
  /** Per operation and outcome, for hours in `[days.from, days.to)` (latency not summed). */
  byOperation: { operation: string; outcome: string; requests: number }[];
  /** Admitted requests (2xx, 4xx, 5xx) of hours from `todayFrom` on. */
  admittedToday: number;
}

/**
 * Sums of one key's rows (of a set of keys' for an array, or, `keyId` undefined, of the whole API's) for the
 * traffic charts.
 * @param hours `[from, to)` of the hourly series; `days` of the daily series and the breakdown; `todayFrom`
 *   the start of today (UTC). All Unix ms.
 */
export async function storedTraffic(
  prisma: PrismaClient,
  keyId: string | readonly string[] | undefined,
  hours: { from: number; to: number },
  days: { from: number; to: number },
  todayFrom: number,
): Promise<StoredTraffic> {
  const from = source(keyId);
  const inHours = Prisma.sql`"hour" >= ${iso(hours.from)}::timestamp(3) AND "hour" < ${iso(hours.to)}::timestamp(3)`;
  const inDays = Prisma.sql`"hour" >= ${iso(days.from)}::timestamp(3) AND "hour" < ${iso(days.to)}::timestamp(3)`;
  const rows = await prisma.$queryRaw<TrafficRow[]>`
    SELECT 'hour' AS kind, (extract(epoch FROM "hour") * 1000)::float8 AS start, NULL AS operation, "outcome",
           sum("requests")::float8 AS requests, ${LATENCY_SUMS} AS latency
    ${from} ${inHours}
    GROUP BY "hour", "outcome"
    UNION ALL
    SELECT 'day', (extract(epoch FROM date_trunc('day', "hour")) * 1000)::float8, NULL, "outcome",
           sum("requests")::float8, ${LATENCY_SUMS}
    ${from} ${inDays}
    GROUP BY date_trunc('day', "hour"), "outcome"
    UNION ALL
    SELECT 'operation', NULL, "operation", "outcome", sum("requests")::float8, NULL
    ${from} ${inDays}
    GROUP BY "operation", "outcome"
    UNION ALL
    SELECT 'today', NULL, NULL, NULL, coalesce(sum("requests"), 0)::float8, NULL
    ${from} "hour" >= ${iso(todayFrom)}::timestamp(3) AND "outcome" IN ('2xx', '4xx', '5xx')`;
  const out: StoredTraffic = { hourly: [], daily: [], byOperation: [], admittedToday: 0 };
  for (const r of rows) {
    if (r.kind === "today") out.admittedToday = r.requests;
    else if (r.kind === "operation")
      out.byOperation.push({
        operation: r.operation as string,
        outcome: r.outcome as string,
        requests: r.requests,
      });
    else
      out[r.kind === "hour" ? "hourly" : "daily"].push({
        start: r.start as number,
        outcome: r.outcome as string,
        requests: r.requests,
        latency: r.latency ?? [],
      });
  }
  return out;
}

/**
 * One key's stored sums per hour and stored outcome (recorder.ts `StoredOutcome`: 429s split by refusing window)
 * for hours in `[from, to)` (Unix ms; one UTC day when the key's page asks). The primary key of UsageHour starts
 * with (apiKeyId, hour), so this reads the range's rows only: at most 24 x operations x outcomes for a day.
 */
export function storedHoursByOutcome(
  prisma: PrismaClient,
  keyId: string,
  from: number,
  to: number,
): Promise<(Sum & { start: number; outcome: string })[]> {
  return prisma.$queryRaw<(Sum & { start: number; outcome: string })[]>`
    SELECT (extract(epoch FROM "hour") * 1000)::float8 AS start, "outcome",
           sum("requests")::float8 AS requests, ${LATENCY_SUMS} AS latency
    FROM "UsageHour"
    WHERE "apiKeyId" = ${keyId}::uuid AND "hour" >= ${iso(from)}::timestamp(3) AND "hour" < ${iso(to)}::timestamp(3)
    GROUP BY "hour", "outcome"`;
}

/** One UTC day of one key as stored: admitted requests, those of getPet, and 429s. */
export interface StoredDay {
  /** Start of the UTC day, Unix ms. */
  day: number;
  requests: number;
  deprecatedGet: number;
  rateLimited: number;
}

/** A key's stored figures per UTC day for hours in `[from, to)` (Unix ms). */
export function storedDays(
  prisma: PrismaClient,
  keyId: string,
  from: number,
  to: number,
): Promise<StoredDay[]> {
  return prisma.$queryRaw<StoredDay[]>`
    SELECT (extract(epoch FROM date_trunc('day', "hour")) * 1000)::float8 AS day,
           coalesce(sum("requests") FILTER (WHERE "outcome" IN ('2xx', '4xx', '5xx')), 0)::float8 AS requests,
           coalesce(sum("requests") FILTER (WHERE "outcome" IN ('2xx', '4xx', '5xx') AND "operation" = 'getPet'), 0)::float8
             AS "deprecatedGet",
           coalesce(sum("requests") FILTER (WHERE "outcome" IN ('rate_limited', 'rate_limited_minute', 'rate_limited_day', 'rate_limited_month', 'key_banned')), 0)::float8 AS "rateLimited"
    FROM "UsageHour"
    WHERE "apiKeyId" = ${keyId}::uuid AND "hour" >= ${iso(from)}::timestamp(3) AND "hour" < ${iso(to)}::timestamp(3)
    GROUP BY date_trunc('day', "hour")`;
}

/** Bans of a key per UTC day (its `apiKey.ban` audit entries) in `[from, to)` (Unix ms). */
export function bansPerDay(
  prisma: PrismaClient,
  keyId: string,
  from: number,
  to: number,
): Promise<{ day: number; bans: number }[]> {
  return prisma.$queryRaw`
    SELECT (extract(epoch FROM date_trunc('day', "at")) * 1000)::float8 AS day, count(*)::float8 AS bans
    FROM "AuditLog"
    WHERE "entityType" = 'apiKey' AND "entityId" = ${keyId} AND "action" = 'apiKey.ban'
      AND "at" >= ${iso(from)}::timestamp(3) AND "at" < ${iso(to)}::timestamp(3)
    GROUP BY date_trunc('day', "at")`;
}

/** Bans of each of `keyIds` (their `apiKey.ban` audit entries) in `[from, to)` (Unix ms); keys without one are absent. */
export async function bansOfKeys(
  prisma: PrismaClient,
  keyIds: string[],
  from: number,
  to: number,
): Promise<Map<string, number>> {
  const rows = await prisma.$queryRaw<{ id: string; bans: number }[]>`
    SELECT "entityId" AS id, count(*)::float8 AS bans
    FROM "AuditLog"
    WHERE "entityType" = 'apiKey' AND "entityId" = ANY(${keyIds}::text[]) AND "action" = 'apiKey.ban'
      AND "at" >= ${iso(from)}::timestamp(3) AND "at" < ${iso(to)}::timestamp(3)
    GROUP BY "entityId"`;
  return new Map(rows.map((r) => [r.id, r.bans]));
}

/** A window of hourly rows: `[from, to)` (Unix ms), the stored outcomes counted, and only `operation`'s when given. */
export interface UsageWindow {
  operation?: string;
  outcomes: readonly string[];
  from: number;
  to: number;
}

/**
 * Each of `windows` summed for each of `keyIds`, in one statement: one scan of the keys' rows of the hours the
 * windows span (UsageHour's primary key starts with the key and the hour), each window a `FILTER`ed sum.
 * @returns per window, in order, keyId -> requests (keys without any left out).
 */
export async function keyWindowSums(
  prisma: PrismaClient,
  keyIds: string[],
  windows: readonly UsageWindow[],
): Promise<Map<string, number>[]> {
  const sums = windows.map(() => new Map<string, number>());
  if (keyIds.length === 0 || windows.length === 0) return sums;
  const columns = windows.map(
    (w, i) => Prisma.sql`coalesce(sum("requests") FILTER (WHERE "outcome" = ANY(${[...w.outcomes]}::text[])
      AND "hour" >= ${iso(w.from)}::timestamp(3) AND "hour" < ${iso(w.to)}::timestamp(3)
      ${w.operation ? Prisma.sql`AND "operation" = ${w.operation}` : Prisma.empty}), 0)::float8 AS ${Prisma.raw(`w${i}`)}`,
  );
  const rows = await prisma.$queryRaw<Record<string, number | string>[]>`
    SELECT "apiKeyId"::text AS id, ${Prisma.join(columns)}
    FROM "UsageHour"
    WHERE "apiKeyId" = ANY(${keyIds}::uuid[])
      AND "hour" >= ${iso(Math.min(...windows.map((w) => w.from)))}::timestamp(3)
      AND "hour" < ${iso(Math.max(...windows.map((w) => w.to)))}::timestamp(3)
    GROUP BY "apiKeyId"`;
  for (const row of rows)
    windows.forEach((_, i) => {
      const n = row[`w${i}`] as number;
      if (n > 0) sums[i]?.set(row.id as string, n);
    });
  return sums;
}

/** The overview's request figures of the keys (requests without a key left out). */
export interface KeyDayTotals {
  /** Admitted requests of every key today and yesterday (UTC). */
  today: number;
  yesterday: number;
  /** The `limit` keys with the most admitted requests today (more than 0), most first, ties by id. */
  top: { id: string; prefix: string; name: string; plan: PlanName; requestsToday: number }[];
}

/**
 * Admitted requests of every key today and yesterday and the busiest keys today, summed and ranked in the
 * database with this instance's unflushed counts (`pending`: per key, day 0 = today or 1 = yesterday) added in
 * the same statement, so the ranking sees the figures every screen shows.
 * @param today start of today (UTC), Unix ms.
 */
export async function keyDayTotals(
  prisma: PrismaClient,
  today: number,
  pending: { keyId: string; day: 0 | 1; requests: number }[],
  limit: number,
): Promise<KeyDayTotals> {
  const rows = await prisma.$queryRaw<
    {
      kind: "sum" | "top";
      day: number;
      id: string | null;
      prefix: string | null;
      name: string | null;
      plan: PlanName | null;
      n: number;
    }[]
  >`
    WITH pending AS (
      SELECT * FROM unnest(${pending.map((p) => p.keyId)}::uuid[], ${pending.map((p) => p.day)}::int[],
                           ${pending.map((p) => p.requests)}::float8[]) AS p(k, d, n)
    ),
    stored AS (
      SELECT "apiKeyId" AS k, CASE WHEN "hour" >= ${iso(today)}::timestamp(3) THEN 0 ELSE 1 END AS d,
             sum("requests")::float8 AS n
      FROM "UsageHour"
      WHERE "hour" >= ${iso(today - 86_400_000)}::timestamp(3) AND "hour" < ${iso(today + 86_400_000)}::timestamp(3)
        AND "outcome" IN ('2xx', '4xx', '5xx') AND "apiKeyId" <> ${NO_KEY}::uuid
      GROUP BY 1, 2
    ),
    per_key AS (
      SELECT k, d, sum(n) AS n FROM (SELECT * FROM stored UNION ALL SELECT * FROM pending) AS x GROUP BY k, d
    )
    SELECT 'sum' AS kind, d AS day, NULL::text AS id, NULL AS prefix, NULL AS name, NULL AS plan, sum(n) AS n
    FROM per_key GROUP BY d
    UNION ALL
    (SELECT 'top', 0, a."id"::text, a."prefix", a."name", a."planName"::text, b.n
     FROM per_key AS b JOIN "ApiKey" AS a ON a."id" = b.k
     WHERE b.d = 0 AND b.n > 0
     ORDER BY b.n DESC, a."id" LIMIT ${limit})`;
  const out: KeyDayTotals = { today: 0, yesterday: 0, top: [] };
  for (const r of rows) {
    if (r.kind === "sum") out[r.day === 0 ? "today" : "yesterday"] = r.n;
    else
      out.top.push({
        id: r.id as string,
        prefix: r.prefix as string,
        name: r.name as string,
        plan: r.plan as PlanName,
        requestsToday: r.n,
      });
  }
  out.top.sort((a, b) => b.requestsToday - a.requestsToday || (a.id < b.id ? -1 : 1));
  return out;
}
