/**
 * The admin's API key list (docs/contract.md section 4 "API keys"): one page, searched by name (any case,
 * anywhere in it) or display prefix (from its start), filtered by plan and by state, sorted (ApiKeySearch in
 * contracts). The page's ids are chosen by one statement (filter, order, the total), then its keys are read.
 * The state filter is the same rule as `apiKeyState` (view.ts), written as SQL for `now`.
 */
import type { ApiKeyActivityFilter, ApiKeySearch, ApiKeySort, ApiKeyStateFilter } from "@petstore/contracts";
import { Prisma } from "@petstore/db";
import type { CoreDeps } from "../deps.ts";
import { likeLiteral } from "../like.ts";
import { DAY_MS, utcDayStart } from "../utc-day.ts";
import { type ApiKeyView, EXPIRING_SOON_MS, toView } from "./view.ts";

const HOUR_MS = 3_600_000;
const ts = (d: Date | number) => Prisma.sql`${new Date(d).toISOString()}::timestamp(3)`;

/** The SQL condition on `a` (an ApiKey row) for keys in `state` at `now` (mirrors `apiKeyState`). */
export function stateCondition(state: ApiKeyStateFilter, now: Date): Prisma.Sql {
  const notRevoked = Prisma.sql`(a."revokedAt" IS NULL OR a."revokedAt" > ${ts(now)})`;
  const notExpired = Prisma.sql`(a."expiresAt" IS NULL OR a."expiresAt" > ${ts(now)})`;
  const notBanned = Prisma.sql`(a."bannedUntil" IS NULL OR a."bannedUntil" <= ${ts(now)})`;
  const soon = now.getTime() + EXPIRING_SOON_MS;
  switch (state) {
    case "working":
      return Prisma.sql`${notRevoked} AND ${notExpired}`;
    case "revoked":
      return Prisma.sql`a."revokedAt" <= ${ts(now)}`;
    case "expired":
      return Prisma.sql`${notRevoked} AND a."expiresAt" <= ${ts(now)}`;
    case "banned":
      return Prisma.sql`${notRevoked} AND ${notExpired} AND a."bannedUntil" > ${ts(now)}`;
    case "expiring":
      return Prisma.sql`${notRevoked} AND ${notBanned} AND a."expiresAt" > ${ts(now)} AND a."expiresAt" < ${ts(soon)}`;
    case "active":
      return Prisma.sql`${notRevoked} AND ${notBanned} AND (a."expiresAt" IS NULL OR a."expiresAt" >= ${ts(soon)})`;
  }
}

/** Rows of refused requests: the predicate of the partial index `UsageHour_refused_hour_idx`. */
const refused = Prisma.sql`"outcome" IN ('rate_limited', 'rate_limited_minute', 'rate_limited_day', 'rate_limited_month', 'key_banned')`;

/** The keys `activity` selects (see ApiKeyActivityFilter), as of `now`. */
function activityCondition(activity: ApiKeyActivityFilter, now: Date): Prisma.Sql {
  const ago = (days: number) => ts(now.getTime() - days * DAY_MS);
  switch (activity) {
    case "used7d":
      return Prisma.sql`a."lastUsedAt" >= ${ago(7)}`;
    case "unused30d":
      return Prisma.sql`(a."lastUsedAt" IS NULL OR a."lastUsedAt" < ${ago(30)})`;
    case "refused7d":
      return Prisma.sql`a."id" IN (SELECT "apiKeyId" FROM "UsageHour" WHERE ${refused} AND "hour" >= ${ago(7)})`;
    case "banned30d":
      return Prisma.sql`a."id"::text IN (SELECT "entityId" FROM "AuditLog"
                        WHERE "action" = 'apiKey.ban' AND "entityType" = 'apiKey' AND "at" >= ${ago(30)})`;
  }
}

/** Rows of requests that reached the API: the predicate of the partial index `UsageHour_admitted_hour_idx`. */
const admitted = Prisma.sql`"outcome" IN ('2xx', '4xx', '5xx')`;

/**
 * The sorts by a sum of stored usage: which hourly rows count, the UsageDay column that holds their sum per day, and
 * from when (Unix ms; a window of days is today (UTC) and the days before it, utc-day.ts `lastUtcDays`, ending with
 * the current UTC hour). Each predicate is the one a partial index serves (`UsageHour_getPet_hour_idx`,
 * `UsageHour_admitted_hour_idx`, `UsageHour_refused_hour_idx`).
 */
function usageSorts(
  today: number,
): Partial<Record<ApiKeySort, { where: Prisma.Sql; day: Prisma.Sql; from: number }>> {
  const daysFrom = (days: number) => today - (days - 1) * DAY_MS;
  return {
    getPetCalls: {
      where: Prisma.sql`"operation" = 'getPet' AND "outcome" IN ('2xx', '4xx', '5xx')`,
      day: Prisma.sql`"getPet"`,
      from: daysFrom(30),
    },
    requestsToday: { where: admitted, day: Prisma.sql`"admitted"`, from: today },
    requests7d: { where: admitted, day: Prisma.sql`"admitted"`, from: daysFrom(7) },
    requests30d: { where: admitted, day: Prisma.sql`"admitted"`, from: daysFrom(30) },
    rateLimited7d: { where: refused, day: Prisma.sql`"refused"`, from: daysFrom(7) },
  };
}

/**
 * Each key's sum of `sort` from `sort.from` to `to` (Unix ms, whole hours), as rows `(k, n)`: the whole UTC days
 * inside the window from UsageDay, the hours before the first and after the last of them from UsageHour, so that
 * 30 days read about a day of hourly rows and a row per key for each other day (docs/performance.md "Keys list
 * sorted by usage").
 */
function keySums(sort: { where: Prisma.Sql; day: Prisma.Sql; from: number }, to: number): Prisma.Sql {
  const hours = (from: number, until: number) => Prisma.sql`
    SELECT "apiKeyId" AS k, "requests" AS n FROM "UsageHour"
    WHERE ${sort.where} AND "hour" >= ${ts(from)} AND "hour" < ${ts(until)}`;
  const firstDay = utcDayStart(sort.from + DAY_MS - 1);
  const lastDay = utcDayStart(to);
  if (firstDay >= lastDay) return hours(sort.from, to);
  return Prisma.sql`${hours(sort.from, firstDay)}
    UNION ALL
    SELECT "apiKeyId", ${sort.day} FROM "UsageDay" WHERE "day" >= ${ts(firstDay)} AND "day" < ${ts(lastDay)}
    UNION ALL
    ${hours(lastDay, to)}`;
}

export function createApiKeySearch({ prisma, clock }: Pick<CoreDeps, "prisma" | "clock">) {
  /**
   * One page of keys matching `query` (see ApiKeySearch in contracts), in its order, ties newest first, then by
   * id. The usage sorts sum the stored hourly rows (`usageSorts`), so a key's requests of this instance's last
   * few seconds may not have moved it yet.
   * @returns `{rows: ApiKeyView[], total}`, `total` counting every match.
   */
  return async function search(query: ApiKeySearch): Promise<{ rows: ApiKeyView[]; total: number }> {
    const now = clock();
    const text = query.query?.trim();
    const prefix = text?.replace(/…$/, "");
    const conditions: Prisma.Sql[] = [Prisma.sql`true`];
    if (text && prefix !== undefined)
      conditions.push(
        Prisma.sql`(a."name" ILIKE ${`%${likeLiteral(text)}%`} OR a."prefix" LIKE ${`${likeLiteral(prefix)}%`})`,
      );
    if (query.plan) conditions.push(Prisma.sql`a."planName" = ${query.plan}::"PlanName"`);
    if (query.state) conditions.push(stateCondition(query.state, now));
    if (query.activity) conditions.push(activityCondition(query.activity, now));
    const where = Prisma.join(conditions, " AND ");

    const to = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS;
    const summed = usageSorts(utcDayStart(now.getTime()))[query.sort];
    // Bans are counted where the key page counts them: the key's `apiKey.ban` audit entries (30 days to now).
    const usage = summed
      ? Prisma.sql`LEFT JOIN (
            SELECT u.k, sum(u.n) AS n FROM (${keySums(summed, to)}) AS u GROUP BY u.k) AS g ON g.k = a."id"`
      : query.sort === "bans30d"
        ? Prisma.sql`LEFT JOIN (
            SELECT "entityId" AS k, count(*) AS n FROM "AuditLog"
            WHERE "action" = 'apiKey.ban' AND "entityType" = 'apiKey'
              AND "at" >= ${ts(now.getTime() - 30 * DAY_MS)} AND "at" <= ${ts(now.getTime())}
            GROUP BY "entityId") AS g ON g.k = a."id"::text`
        : Prisma.empty;
    const sortsBySum = summed !== undefined || query.sort === "bans30d";
    // With a search under the default order, the key the admin typed comes first: an exact name, then a match
    // at the start of the key's prefix or of its name, then a match anywhere in the name.
    const rank =
      text && prefix !== undefined && query.sort === "created"
        ? Prisma.sql`CASE WHEN a."name" ILIKE ${likeLiteral(text)} THEN 0
                          WHEN a."prefix" LIKE ${`${likeLiteral(prefix)}%`} OR a."name" ILIKE ${`${likeLiteral(text)}%`} THEN 1
                          ELSE 2 END`
        : Prisma.sql`0`;
    const order = {
      created: Prisma.sql`m.rank, m."createdAt" DESC, m."id"`,
      lastUsed: Prisma.sql`m."lastUsedAt" DESC NULLS LAST, m."createdAt" DESC, m."id"`,
      getPetCalls: Prisma.sql`m.summed DESC, m."createdAt" DESC, m."id"`,
      requestsToday: Prisma.sql`m.summed DESC, m."createdAt" DESC, m."id"`,
      requests7d: Prisma.sql`m.summed DESC, m."createdAt" DESC, m."id"`,
      requests30d: Prisma.sql`m.summed DESC, m."createdAt" DESC, m."id"`,
      rateLimited7d: Prisma.sql`m.summed DESC, m."createdAt" DESC, m."id"`,
      bans30d: Prisma.sql`m.summed DESC, m."createdAt" DESC, m."id"`,
    }[query.sort];
    const found = await prisma.$queryRaw<{ total: number; id: string | null }[]>`
      WITH m AS (
        SELECT a."id", a."createdAt", a."lastUsedAt", ${rank} AS rank,
               ${sortsBySum ? Prisma.sql`coalesce(g.n, 0)` : Prisma.sql`0`} AS summed
        FROM "ApiKey" AS a ${usage}
        WHERE ${where}
      )
      SELECT t.total, p."id"::text AS id
      FROM (SELECT count(*)::float8 AS total FROM m) AS t
      LEFT JOIN LATERAL (
        SELECT m."id" FROM m ORDER BY ${order}
        LIMIT ${query.pageSize} OFFSET ${(query.page - 1) * query.pageSize}
      ) AS p ON true`;
    const ids = found.flatMap((r) => (r.id ? [r.id] : []));
    const rows = await prisma.apiKey.findMany({ where: { id: { in: ids } }, include: { plan: true } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return {
      total: found[0]?.total ?? 0,
      rows: ids.flatMap((id) => {
        const row = byId.get(id);
        return row ? [toView(row, now)] : [];
      }),
    };
  };
}
