/**
 * The keys that still call the deprecated getPet (docs/contract.md section 4 "API keys": admins chase its users
 * before the sunset of section 1 "getPet"), summed in the database from the hourly rows of UsageHour
 * (docs/architecture.md "Where dashboard figures are computed"): one statement groups the window's getPet rows
 * by key, adds this instance's unflushed counts, joins the keys and returns one page with the total. A call is
 * one that reached the API (2xx, 4xx, 5xx), as in a key's charts (`deprecatedGet`); 429s are not calls. The
 * window is whole UTC days: today and the `days - 1` before it (utc-day.ts `lastUtcDays`). Instants are Unix ms.
 */
import type { DeprecatedCallsFilter, PlanName } from "@petstore/contracts";
import type { PrismaClient } from "@petstore/db";
import { Prisma } from "@petstore/db";
import { isLive, isRevoked } from "../api-keys/policy.ts";
import { lastUtcDays } from "../utc-day.ts";
import { NO_KEY, type UsageHourRow } from "./recorder.ts";
import { isAdmitted } from "./rows.ts";

/** A key that called getPet in the window. */
export interface DeprecatedCaller {
  id: string;
  name: string;
  prefix: string;
  plan: PlanName;
  /** `working` = neither revoked nor expired (docs/contract.md section 2). */
  state: "working" | "revoked" | "expired";
  /** getPet calls that reached the API in the window. */
  calls: number;
  /** Start of the UTC hour of the last such call, ISO 8601. */
  lastCallAt: string;
  /**
   * Whom to ask to move off getPet: the emails of the active owners of the key's account, or for a key outside any
   * account (or one whose account has none) whoever issued it (an email, or the CLI or system actor as recorded).
   */
  contacts: string[];
}

/** `[from, to)` of the window of `days` UTC days ending with today (Unix ms). */
export function deprecatedCallsWindow(now: Date, days: number): { from: number; to: number } {
  return lastUtcDays(now.getTime(), days);
}

/** Per key, the unflushed getPet calls of `[from, to)` and the hour of the last one. */
function pendingCalls(rows: UsageHourRow[], from: number, to: number) {
  const byKey = new Map<string, { n: number; last: number }>();
  for (const r of rows) {
    if (r.operation !== "getPet" || r.apiKeyId === NO_KEY || !isAdmitted(r.outcome)) continue;
    if (r.hour < from || r.hour >= to) continue;
    const entry = byKey.get(r.apiKeyId) ?? { n: 0, last: r.hour };
    entry.n += r.requests;
    entry.last = Math.max(entry.last, r.hour);
    byKey.set(r.apiKeyId, entry);
  }
  return byKey;
}

interface Raw {
  total: number;
  id: string | null;
  name: string;
  prefix: string;
  plan: PlanName;
  revokedAt: Date | null;
  expiresAt: Date | null;
  calls: number;
  last: number;
  owners: string[] | null;
  createdBy: string;
}

/** Where the keyset of an export batch resumes: after this row in the view's order. */
export interface DeprecatedCallsAfter {
  id: string;
  calls: number;
  last: number;
}

/**
 * One page of the keys with getPet calls in `[from, to)`, most calls first (`sort` "calls", then the latest last
 * call) or latest last call first ("lastCall", then the most calls), then by key id; `pending` are this
 * instance's unflushed rows.
 * @param page `{limit, offset}`, or `{limit, after}` to resume after a row (the CSV export's keyset).
 * @returns `{total, rows}`: `total` counts every key in the window; `rows` carry `last` (Unix ms) for a keyset.
 */
export async function deprecatedCallers(
  prisma: PrismaClient,
  window: { from: number; to: number; now: Date },
  sort: DeprecatedCallsFilter["sort"],
  pending: UsageHourRow[],
  page: { limit: number; offset?: number; after?: DeprecatedCallsAfter },
): Promise<{ total: number; rows: (DeprecatedCaller & { last: number })[] }> {
  const iso = (ms: number) => new Date(ms).toISOString();
  const extra = [...pendingCalls(pending, window.from, window.to)];
  const a = page.after;
  const after = !a
    ? Prisma.empty
    : sort === "calls"
      ? Prisma.sql`WHERE (-j.calls, -j.last, j."id") > (${-a.calls}::float8, ${-a.last}::float8, ${a.id}::uuid)`
      : Prisma.sql`WHERE (-j.last, -j.calls, j."id") > (${-a.last}::float8, ${-a.calls}::float8, ${a.id}::uuid)`;
  const raw = await prisma.$queryRaw<Raw[]>`
    WITH pending AS (
      SELECT * FROM unnest(${extra.map(([k]) => k)}::uuid[], ${extra.map(([, p]) => p.n)}::float8[],
                           ${extra.map(([, p]) => iso(p.last))}::timestamp(3)[]) AS p(k, n, last)
    ),
    stored AS (
      SELECT "apiKeyId" AS k, sum("requests")::float8 AS n, max("hour") AS last
      FROM "UsageHour"
      WHERE "operation" = 'getPet' AND "hour" >= ${iso(window.from)}::timestamp(3)
        AND "hour" < ${iso(window.to)}::timestamp(3) AND "outcome" IN ('2xx', '4xx', '5xx')
        AND "apiKeyId" <> ${NO_KEY}::uuid
      GROUP BY "apiKeyId"
    ),
    joined AS (
      SELECT a."id", a."name", a."prefix", a."planName"::text AS plan, a."revokedAt", a."expiresAt",
             a."accountId", a."createdBy", c.n AS calls, (extract(epoch FROM c.last) * 1000)::float8 AS last
      FROM (SELECT k, sum(n) AS n, max(last) AS last
            FROM (SELECT * FROM stored UNION ALL SELECT * FROM pending) AS x GROUP BY k) AS c
      JOIN "ApiKey" AS a ON a."id" = c.k
    )
    SELECT t.total, j."id"::text AS id, j."name", j."prefix", j.plan, j."revokedAt", j."expiresAt", j.calls, j.last,
           j."createdBy",
           (SELECT array_agg(u."email" ORDER BY u."email") FROM "User" AS u
            WHERE u."accountId" = j."accountId" AND u."role" = 'owner' AND u."active") AS owners
    FROM (SELECT count(*)::float8 AS total FROM joined) AS t
    LEFT JOIN LATERAL (
      SELECT * FROM joined AS j ${after}
      ORDER BY ${sort === "calls" ? Prisma.sql`j.calls DESC, j.last DESC` : Prisma.sql`j.last DESC, j.calls DESC`}, j."id"
      LIMIT ${page.limit} OFFSET ${page.offset ?? 0}
    ) AS j ON true`;
  const now = window.now;
  return {
    total: raw[0]?.total ?? 0,
    rows: raw
      .filter((r) => r.id !== null)
      .map((r) => ({
        id: r.id as string,
        name: r.name,
        prefix: r.prefix,
        plan: r.plan,
        state: isLive(r, now) ? "working" : isRevoked(r, now) ? "revoked" : "expired",
        calls: r.calls,
        lastCallAt: iso(r.last),
        contacts: r.owners?.length ? r.owners : [r.createdBy.replace(/^user:/, "")],
        last: r.last,
      })),
  };
}
