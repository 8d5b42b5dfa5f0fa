/**
 * API key usage as every screen and the CLI show it (docs/contract.md section 4, "Usage and analytics"): the
 * ONE place usage figures are computed, all from the UsageHour analytics rows (stored, plus this instance's
 * counts not yet flushed), so the overview, the key list, a key's page, its charts and the CLI agree for the
 * same key at the same moment. "Requests" are the requests that reached the API (2xx, 4xx, 5xx); 429s are
 * counted apart; bans per day come from the audit log (`apiKey.ban`). Also the overview figures and the
 * audited "reset today's usage".
 */
import {
  AppError,
  type DeprecatedCallsFilter,
  type DeprecatedCallsQuery,
  PLAN_NAMES,
  type PlanName,
} from "@petstore/contracts";
import { liveWhere } from "../api-keys/policy.ts";
import { writeAudit } from "../audit.ts";
import type { Actor, CoreDeps } from "../deps.ts";
import { countByStatus, type StatusCount } from "../pets/status-counts.ts";
import { DAY_MS, isoDay, lastUtcDays, utcDayStart } from "../utc-day.ts";
import { createAnalyticsQueries } from "./analytics.ts";
import { createBilling } from "./billing.ts";
import {
  type DeprecatedCaller,
  type DeprecatedCallsAfter,
  deprecatedCallers,
  deprecatedCallsWindow,
} from "./deprecated-calls.ts";
import { deleteKeyHours, purgeAnalyticsOlderThan } from "./flush.ts";
import { NO_KEY, type UsageHourRow } from "./recorder.ts";
import {
  ADMITTED,
  admittedByKey,
  DENIED,
  isAdmitted,
  isDenied,
  noUsageSources,
  readWithPending,
  type UsageSources,
} from "./rows.ts";
import { bansOfKeys, bansPerDay, keyDayTotals, keyWindowSums, storedDays, type UsageWindow } from "./sums.ts";

/** One UTC day of one key. */
export interface UsageDay {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  /** Requests that reached the API (any status but 429). */
  requests: number;
  /** Requests refused with 429 (`rate_limited` or `key_banned`). */
  rateLimited: number;
  /** Bans imposed that day. */
  bans: number;
  /** Calls of the deprecated getPet that reached the API. */
  deprecatedGet: number;
}

export type AnimalsByStatus = StatusCount[];

export interface KeyOverview {
  /** Keys that still work (neither revoked nor expired), by plan. */
  keysByPlan: { plan: PlanName; count: number }[];
  /** Requests of all keys today and yesterday (UTC days). */
  requests: { today: number; yesterday: number };
  /** The 5 keys with the most requests today (UTC), busiest first. */
  topKeys: { id: string; prefix: string; name: string; plan: PlanName; requestsToday: number }[];
}

/** Keys per batch of the deprecated-calls CSV export. */
export const DEPRECATED_CALLS_EXPORT_BATCH = 2_000;

/** Days of hourly rows kept when no config says (ANALYTICS_RETENTION_DAYS's default). */
const DEFAULT_RETENTION_DAYS = 90;

const isoDayOf = (ms: number) => isoDay(new Date(ms));

/** Unflushed admitted requests per key of the UTC day starting at `today` (0) and of the day before (1). */
function pendingByKeyDay(rows: UsageHourRow[], today: number) {
  const pending = new Map<string, { keyId: string; day: 0 | 1; requests: number }>();
  for (const r of rows) {
    if (
      r.apiKeyId === NO_KEY ||
      !isAdmitted(r.outcome) ||
      r.hour < today - DAY_MS ||
      r.hour >= today + DAY_MS
    )
      continue;
    const day = r.hour >= today ? 0 : 1;
    const entry = pending.get(`${r.apiKeyId}|${day}`) ?? { keyId: r.apiKeyId, day, requests: 0 };
    entry.requests += r.requests;
    pending.set(`${r.apiKeyId}|${day}`, entry);
  }
  return [...pending.values()];
}

/**
 * @param deps Prisma, the clock and, when given, the config (its `analytics.retentionDays` bounds the days a
 *   key's day-by-hour view reaches back; without it, the default 90)
 * @param sources this instance's unflushed counts and the recent-requests store (the analytics recorder)
 */
export function createUsageService(
  { prisma, clock, config }: Pick<CoreDeps, "prisma" | "clock"> & Partial<Pick<CoreDeps, "config">>,
  sources: UsageSources = noUsageSources,
) {
  const todayTotals = (keyIds?: string[]) => {
    const today = utcDayStart(clock().getTime());
    return admittedByKey(prisma, sources, today, today + DAY_MS, keyIds);
  };

  /**
   * Requests of each of `ids` in each of `windows`, stored and pending: per window, keyId -> requests (keys
   * without any left out).
   */
  const windowSums = (ids: string[], windows: readonly UsageWindow[]) =>
    readWithPending(sources, async (pending) => {
      const totals = await keyWindowSums(prisma, ids, windows);
      const wanted = new Set(ids);
      for (const p of pending) {
        if (!wanted.has(p.apiKeyId)) continue;
        windows.forEach((w, i) => {
          if (w.operation && p.operation !== w.operation) return;
          if (!w.outcomes.includes(p.outcome) || p.hour < w.from || p.hour >= w.to) return;
          const sums = totals[i] as Map<string, number>;
          sums.set(p.apiKeyId, (sums.get(p.apiKeyId) ?? 0) + p.requests);
        });
      }
      return totals;
    });

  return {
    /** Usage for billing: per account and UTC month, requests by operation and outcome (billing.ts). */
    billing: createBilling({ prisma, clock }),
    ...createAnalyticsQueries(
      { prisma, clock, retentionDays: config?.analytics.retentionDays ?? DEFAULT_RETENTION_DAYS },
      sources,
    ),

    /**
     * The last `days` UTC days of one key, oldest first, zero-filled.
     * @returns `days` entries of `{day: "YYYY-MM-DD", requests, rateLimited, bans, deprecatedGet}`.
     */
    async daily(keyId: string, days: number): Promise<UsageDay[]> {
      const first = utcDayStart(clock().getTime()) - (days - 1) * DAY_MS;
      const end = first + days * DAY_MS;
      const [[stored, pending], bans] = await Promise.all([
        readWithPending(
          sources,
          async (rows) => [await storedDays(prisma, keyId, first, end), rows] as const,
        ),
        bansPerDay(prisma, keyId, first, end),
      ]);
      const out: UsageDay[] = Array.from({ length: days }, (_, i) => ({
        day: isoDayOf(first + i * DAY_MS),
        requests: 0,
        rateLimited: 0,
        bans: 0,
        deprecatedGet: 0,
      }));
      const at = (ms: number) => out[Math.floor((ms - first) / DAY_MS)];
      for (const s of stored) {
        const d = at(s.day);
        if (!d) continue;
        d.requests += s.requests;
        d.deprecatedGet += s.deprecatedGet;
        d.rateLimited += s.rateLimited;
      }
      for (const r of pending) {
        const d = r.apiKeyId === keyId && r.hour >= first && r.hour < end ? at(r.hour) : undefined;
        if (!d) continue;
        if (isAdmitted(r.outcome)) {
          d.requests += r.requests;
          if (r.operation === "getPet") d.deprecatedGet += r.requests;
        } else if (isDenied(r.outcome)) d.rateLimited += r.requests;
      }
      for (const b of bans) {
        const d = at(b.day);
        if (d) d.bans += b.bans;
      }
      return out;
    },

    /**
     * One page of the keys that called the deprecated getPet in the last `days` days (deprecated-calls.ts),
     * stored and pending calls summed in one statement.
     * @returns `{total, rows: [{id, name, prefix, plan, state, calls, lastCallAt}]}`, `total` counting every
     *   such key.
     */
    async deprecatedCalls(query: DeprecatedCallsQuery): Promise<{ total: number; rows: DeprecatedCaller[] }> {
      const now = clock();
      const window = { ...deprecatedCallsWindow(now, query.days), now };
      const page = await readWithPending(sources, (pending) =>
        deprecatedCallers(prisma, window, query.sort, pending, {
          limit: query.pageSize,
          offset: (query.page - 1) * query.pageSize,
        }),
      );
      return { total: page.total, rows: page.rows.map(({ last: _, ...row }) => row) };
    },

    /**
     * Every key of the deprecated-calls view `filter`, in its order, in batches of `batchSize` read as the
     * consumer asks (the CSV export): the window is fixed when the first batch is read, and each batch resumes
     * after the last row of the one before (keyset), so no key is listed twice. Counts only grow, so a key moves
     * only towards the front: one whose calls of the current hour move it ahead of the batch being read while
     * the file is read is left out of this file (with more than one batch of keys only).
     */
    async *deprecatedCallsBatches(
      filter: DeprecatedCallsFilter,
      batchSize = DEPRECATED_CALLS_EXPORT_BATCH,
    ): AsyncGenerator<DeprecatedCaller[], void, undefined> {
      const now = clock();
      const window = { ...deprecatedCallsWindow(now, filter.days), now };
      let after: DeprecatedCallsAfter | undefined;
      for (;;) {
        const { rows } = await readWithPending(sources, (pending) =>
          deprecatedCallers(prisma, window, filter.sort, pending, {
            limit: batchSize,
            ...(after ? { after } : {}),
          }),
        );
        const last = rows[rows.length - 1];
        if (!last) return;
        after = { id: last.id, calls: last.calls, last: last.last };
        yield rows.map(({ last: _, ...row }) => row);
        if (rows.length < batchSize) return;
      }
    },

    /**
     * Adds `getPetCalls30d` to each of `keys`: its calls of the deprecated getPet that reached the API in the
     * last 30 days (the window of the deprecated-calls view), `requests7d` and `requests30d`: its requests that
     * reached the API in the last 7 and 30 days, `rateLimited7d`: its requests refused with 429
     * (a window or a ban) in the last 7 days; a window of days is today (UTC) and the days before it
     * (`lastUtcDays`, as the key's daily charts), stored and pending; and `bans30d`: its bans of the last 30 days
     * (`apiKey.ban` audit entries, as the key page counts them).
     */
    async withWindowSums<K extends { id: string }>(
      keys: K[],
    ): Promise<
      (K & {
        getPetCalls30d: number;
        requests7d: number;
        requests30d: number;
        rateLimited7d: number;
        bans30d: number;
      })[]
    > {
      const ids = keys.map((k) => k.id);
      const now = clock().getTime();
      const month = lastUtcDays(now, 30);
      const week = lastUtcDays(now, 7);
      const [[calls, requests7d, requests30d, refused], bans] = await Promise.all([
        windowSums(ids, [
          { operation: "getPet", outcomes: ADMITTED, ...month },
          { outcomes: ADMITTED, ...week },
          { outcomes: ADMITTED, ...month },
          { outcomes: DENIED, ...week },
        ]),
        bansOfKeys(prisma, ids, now - 30 * DAY_MS, now + 1),
      ]);
      return keys.map((k) => ({
        ...k,
        getPetCalls30d: calls?.get(k.id) ?? 0,
        requests7d: requests7d?.get(k.id) ?? 0,
        requests30d: requests30d?.get(k.id) ?? 0,
        rateLimited7d: refused?.get(k.id) ?? 0,
        bans30d: bans.get(k.id) ?? 0,
      }));
    },

    /** Requests so far today (UTC) of one key, stored and pending. */
    async requestsToday(keyId: string): Promise<number> {
      return (await todayTotals([keyId])).get(keyId) ?? 0;
    },

    /** Adds `requestsToday` (UTC, stored and pending) to each of `keys`. */
    async withRequestsToday<K extends { id: string }>(keys: K[]): Promise<(K & { requestsToday: number })[]> {
      const today = await todayTotals(keys.map((k) => k.id));
      return keys.map((k) => ({ ...k, requestsToday: today.get(k.id) ?? 0 }));
    },

    /**
     * Animals per status (`none` = no status set), for the overview page: exact up to COUNT_CAP, estimated
     * from the planner's statistics above it (`exact: false`; pets/status-counts.ts).
     */
    animalsByStatus(): Promise<AnimalsByStatus> {
      return countByStatus(prisma);
    },

    /**
     * Key figures for the overview page, from the same numbers as the key list and pages: summed and ranked in
     * the database (sums.ts `keyDayTotals`), never every key's total read into Node.
     */
    async keyOverview(): Promise<KeyOverview> {
      const now = clock();
      const today = utcDayStart(now.getTime());
      const [planGroups, totals] = await Promise.all([
        prisma.apiKey.groupBy({
          by: ["planName"],
          where: liveWhere(now),
          _count: { _all: true },
        }),
        readWithPending(sources, (rows) => keyDayTotals(prisma, today, pendingByKeyDay(rows, today), 5)),
      ]);
      return {
        keysByPlan: PLAN_NAMES.map((plan) => ({
          plan,
          count: planGroups.find((g) => g.planName === plan)?._count._all ?? 0,
        })),
        requests: { today: totals.today, yesterday: totals.yesterday },
        topKeys: totals.top,
      };
    },

    /**
     * Deletes analytics rows of hours that began more than `days` days ago (ANALYTICS_RETENTION_DAYS).
     * @returns how many hourly rows were deleted.
     */
    purgeOlderThan(days: number): Promise<number> {
      return purgeAnalyticsOlderThan(prisma, clock(), days);
    },

    /**
     * Zeroes today's figures of a key: its analytics rows of today's hours are deleted (stored and this
     * instance's pending ones; the whole API's hourly sums lose them too), audited with the values before. The caller also resets the rate limiter's
     * own counters.
     * @throws AppError not_found.
     */
    async resetToday(keyId: string, actor: Actor): Promise<void> {
      const day = utcDayStart(clock().getTime());
      await prisma.$transaction(async (tx) => {
        const key = await tx.apiKey.findUnique({ where: { id: keyId }, select: { id: true } });
        if (!key) throw new AppError("not_found", `No API key ${keyId}.`);
        const groups = await tx.usageHour.groupBy({
          by: ["outcome"],
          where: { apiKeyId: keyId, hour: { gte: new Date(day) } },
          _sum: { requests: true },
        });
        let requests = 0;
        let rateLimited = 0;
        for (const g of groups) {
          if (isAdmitted(g.outcome)) requests += g._sum.requests ?? 0;
          else if (isDenied(g.outcome)) rateLimited += g._sum.requests ?? 0;
        }
        for (const p of sources.pendingRows()) {
          if (p.apiKeyId !== keyId || p.hour < day) continue;
          if (isAdmitted(p.outcome)) requests += p.requests;
          else if (isDenied(p.outcome)) rateLimited += p.requests;
        }
        await deleteKeyHours(tx, keyId, day);
        await writeAudit(tx, {
          actor,
          action: "apiKey.resetUsage",
          entityType: "apiKey",
          entityId: keyId,
          before: { day: isoDayOf(day), requests, rateLimited },
          after: { day: isoDayOf(day), requests: 0, rateLimited: 0 },
        });
      });
      sources.dropPending(keyId, day);
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
