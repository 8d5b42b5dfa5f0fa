/**
 * API key usage as every screen shows it (docs/contract.md sections 3 and 4), the ONE place usage figures
 * are computed: stored rows of ApiKeyUsage (one per key per UTC day, written in batches by the rate
 * limiter) plus this instance's counters not yet flushed (`pending`, from the limiter), so the overview,
 * the key list, a key's page and the CLI show the same number for the same key at the same moment.
 * Also the overview figures and the audited "reset today's usage".
 */
import { AppError, PLAN_NAMES, type PlanName } from "@petstore/contracts";
import { liveWhere } from "../api-keys/policy.ts";
import { writeAudit } from "../audit.ts";
import type { Actor, CoreDeps } from "../deps.ts";
import type { UsageCounts } from "../ratelimit/index.ts";
import { DAY_MS, isoDay, utcDay } from "../utc-day.ts";

export interface UsageDay extends UsageCounts {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
}

export type AnimalsByStatus = { status: "available" | "pending" | "sold" | "none"; count: number }[];

export interface KeyOverview {
  /** Keys that still work (neither revoked nor expired), by plan. */
  keysByPlan: { plan: PlanName; count: number }[];
  /** Requests of all keys today and yesterday (UTC days). */
  requests: { today: number; yesterday: number };
  /** The 5 keys with the most requests today (UTC), busiest first. */
  topKeys: { id: string; prefix: string; name: string; plan: PlanName; requestsToday: number }[];
}

/** This instance's not yet flushed counters of a key for the current UTC day (the rate limiter's). */
export type PendingUsage = (keyId: string) => UsageCounts;

const noPending: PendingUsage = () => ({ requests: 0, rateLimited: 0, bans: 0, deprecatedGet: 0 });

/**
 * @param deps Prisma and the clock
 * @param pending the rate limiter's unflushed counters (`rateLimiter.usageToday`); none when omitted
 */
export function createUsageService(
  { prisma, clock }: Pick<CoreDeps, "prisma" | "clock">,
  pending: PendingUsage = noPending,
) {
  /** Requests today of `keyIds` (stored + pending), as a lookup by key id. */
  async function requestsTodayLookup(keyIds: string[]): Promise<(keyId: string) => number> {
    const rows = await prisma.apiKeyUsage.findMany({
      where: { day: utcDay(clock()), apiKeyId: { in: keyIds } },
      select: { apiKeyId: true, requests: true },
    });
    const stored = new Map(rows.map((r) => [r.apiKeyId, r.requests]));
    return (keyId) => (stored.get(keyId) ?? 0) + pending(keyId).requests;
  }

  return {
    /**
     * The last `days` UTC days for one key, oldest first, zero-filled; today includes the pending counters.
     * @returns `days` entries of `{day: "YYYY-MM-DD", requests, rateLimited, bans, deprecatedGet}`.
     */
    async daily(keyId: string, days: number): Promise<UsageDay[]> {
      const today = utcDay(clock());
      const first = new Date(today.getTime() - (days - 1) * DAY_MS);
      const rows = await prisma.apiKeyUsage.findMany({
        where: { apiKeyId: keyId, day: { gte: first, lte: today } },
      });
      const byDay = new Map(rows.map((r) => [isoDay(r.day), r]));
      const now = pending(keyId);
      return Array.from({ length: days }, (_, i) => {
        const day = isoDay(new Date(first.getTime() + i * DAY_MS));
        const r = byDay.get(day);
        const extra = i === days - 1 ? now : noPending(keyId);
        return {
          day,
          requests: (r?.requests ?? 0) + extra.requests,
          rateLimited: (r?.rateLimited ?? 0) + extra.rateLimited,
          bans: (r?.bans ?? 0) + extra.bans,
          deprecatedGet: (r?.deprecatedGet ?? 0) + extra.deprecatedGet,
        };
      });
    },

    /** Requests so far today (UTC) of one key, stored and pending. */
    async requestsToday(keyId: string): Promise<number> {
      return (await requestsTodayLookup([keyId]))(keyId);
    },

    /** Adds `requestsToday` (UTC, stored and pending) to each of `keys`. */
    async withRequestsToday<K extends { id: string }>(keys: K[]): Promise<(K & { requestsToday: number })[]> {
      const today = await requestsTodayLookup(keys.map((k) => k.id));
      return keys.map((k) => ({ ...k, requestsToday: today(k.id) }));
    },

    /** Animals per status (`none` = no status set), for the overview page. */
    async animalsByStatus(): Promise<AnimalsByStatus> {
      const groups = await prisma.pet.groupBy({ by: ["status"], _count: { _all: true } });
      return (["available", "pending", "sold", "none"] as const).map((status) => ({
        status,
        count: groups.find((g) => (g.status ?? "none") === status)?._count._all ?? 0,
      }));
    },

    /** Key figures for the overview page, from the same numbers as the key list and pages. */
    async keyOverview(): Promise<KeyOverview> {
      const now = clock();
      const today = utcDay(now);
      const yesterday = new Date(today.getTime() - DAY_MS);
      const [planGroups, rows] = await Promise.all([
        prisma.apiKey.groupBy({
          by: ["planName"],
          where: liveWhere(now),
          _count: { _all: true },
        }),
        prisma.apiKeyUsage.findMany({
          where: { day: { gte: yesterday } },
          select: { apiKeyId: true, day: true, requests: true },
        }),
      ]);
      const todayByKey = new Map<string, number>();
      let yesterdayTotal = 0;
      for (const row of rows) {
        if (row.day.getTime() === today.getTime()) todayByKey.set(row.apiKeyId, row.requests);
        else yesterdayTotal += row.requests;
      }
      // Keys with pending counters but no stored row yet count too.
      const keys = await prisma.apiKey.findMany({
        select: { id: true, prefix: true, name: true, planName: true },
      });
      const ranked = keys
        .map((k) => ({ ...k, requestsToday: (todayByKey.get(k.id) ?? 0) + pending(k.id).requests }))
        .filter((k) => k.requestsToday > 0)
        .sort((a, b) => b.requestsToday - a.requestsToday);
      return {
        keysByPlan: PLAN_NAMES.map((plan) => ({
          plan,
          count: planGroups.find((g) => g.planName === plan)?._count._all ?? 0,
        })),
        requests: { today: ranked.reduce((n, k) => n + k.requestsToday, 0), yesterday: yesterdayTotal },
        topKeys: ranked.slice(0, 5).map((k) => ({
          id: k.id,
          prefix: k.prefix,
          name: k.name,
          plan: k.planName,
          requestsToday: k.requestsToday,
        })),
      };
    },

    /**
     * Zeroes today's request and 429 counters of a key (audited with the values before). The caller also
     * resets the rate limiter's own counters.
     * @throws AppError not_found.
     */
    async resetToday(keyId: string, actor: Actor): Promise<void> {
      const day = utcDay(clock());
      await prisma.$transaction(async (tx) => {
        const key = await tx.apiKey.findUnique({ where: { id: keyId }, select: { id: true } });
        if (!key) throw new AppError("not_found", `No API key ${keyId}.`);
        const before = await tx.apiKeyUsage.findUnique({ where: { apiKeyId_day: { apiKeyId: keyId, day } } });
        await tx.apiKeyUsage.updateMany({
          where: { apiKeyId: keyId, day },
          data: { requests: 0, rateLimited: 0 },
        });
        await writeAudit(tx, {
          actor,
          action: "apiKey.resetUsage",
          entityType: "apiKey",
          entityId: keyId,
          before: {
            day: isoDay(day),
            requests: before?.requests ?? 0,
            rateLimited: before?.rateLimited ?? 0,
          },
          after: { day: isoDay(day), requests: 0, rateLimited: 0 },
        });
      });
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
