/**
 * API key usage as every screen and the CLI show it (docs/contract.md section 4, "Usage and analytics"): the
 * ONE place usage figures are computed, all from the UsageHour analytics rows (stored, plus this instance's
 * counts not yet flushed), so the overview, the key list, a key's page, its charts and the CLI agree for the
 * same key at the same moment. "Requests" are the requests that reached the API (2xx, 4xx, 5xx); 429s are
 * counted apart; bans per day come from the audit log (`apiKey.ban`). Also the overview figures and the
 * audited "reset today's usage".
 */
import { AppError, PLAN_NAMES, type PlanName } from "@petstore/contracts";
import { liveWhere } from "../api-keys/policy.ts";
import { writeAudit } from "../audit.ts";
import type { Actor, CoreDeps } from "../deps.ts";
import { DAY_MS, isoDay, utcDayStart } from "../utc-day.ts";
import { createAnalyticsQueries } from "./analytics.ts";
import { purgeAnalyticsOlderThan } from "./flush.ts";
import { NO_KEY } from "./recorder.ts";
import { admittedByKey, isAdmitted, isDenied, noUsageSources, readRows, type UsageSources } from "./rows.ts";

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

export type AnimalsByStatus = { status: "available" | "pending" | "sold" | "none"; count: number }[];

export interface KeyOverview {
  /** Keys that still work (neither revoked nor expired), by plan. */
  keysByPlan: { plan: PlanName; count: number }[];
  /** Requests of all keys today and yesterday (UTC days). */
  requests: { today: number; yesterday: number };
  /** The 5 keys with the most requests today (UTC), busiest first. */
  topKeys: { id: string; prefix: string; name: string; plan: PlanName; requestsToday: number }[];
}

const isoDayOf = (ms: number) => isoDay(new Date(ms));

/**
 * @param deps Prisma and the clock
 * @param sources this instance's unflushed counts and the recent-requests store (the analytics recorder)
 */
export function createUsageService(
  { prisma, clock }: Pick<CoreDeps, "prisma" | "clock">,
  sources: UsageSources = noUsageSources,
) {
  const todayTotals = (keyIds?: string[]) => {
    const today = utcDayStart(clock().getTime());
    return admittedByKey(prisma, sources, today, today + DAY_MS, keyIds);
  };

  return {
    ...createAnalyticsQueries({ prisma, clock }, sources),

    /**
     * The last `days` UTC days of one key, oldest first, zero-filled.
     * @returns `days` entries of `{day: "YYYY-MM-DD", requests, rateLimited, bans, deprecatedGet}`.
     */
    async daily(keyId: string, days: number): Promise<UsageDay[]> {
      const first = utcDayStart(clock().getTime()) - (days - 1) * DAY_MS;
      const [rows, bans] = await Promise.all([
        readRows(prisma, sources, first, keyId),
        prisma.auditLog.findMany({
          where: {
            entityType: "apiKey",
            entityId: keyId,
            action: "apiKey.ban",
            at: { gte: new Date(first) },
          },
          select: { at: true },
        }),
      ]);
      const out: UsageDay[] = Array.from({ length: days }, (_, i) => ({
        day: isoDayOf(first + i * DAY_MS),
        requests: 0,
        rateLimited: 0,
        bans: 0,
        deprecatedGet: 0,
      }));
      const at = (ms: number) => out[Math.floor((ms - first) / DAY_MS)];
      for (const r of rows) {
        const d = at(r.hour);
        if (!d) continue;
        if (isAdmitted(r.outcome)) {
          d.requests += r.requests;
          if (r.operation === "getPet") d.deprecatedGet += r.requests;
        } else if (isDenied(r.outcome)) d.rateLimited += r.requests;
      }
      for (const b of bans) {
        const d = at(b.at.getTime());
        if (d) d.bans++;
      }
      return out;
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
      const today = utcDayStart(now.getTime());
      const [planGroups, todayByKey, yesterdayByKey] = await Promise.all([
        prisma.apiKey.groupBy({
          by: ["planName"],
          where: liveWhere(now),
          _count: { _all: true },
        }),
        admittedByKey(prisma, sources, today, today + DAY_MS),
        admittedByKey(prisma, sources, today - DAY_MS, today),
      ]);
      todayByKey.delete(NO_KEY);
      yesterdayByKey.delete(NO_KEY);
      const busy = [...todayByKey].filter(([, n]) => n > 0);
      const keys = await prisma.apiKey.findMany({
        where: { id: { in: busy.map(([id]) => id) } },
        select: { id: true, prefix: true, name: true, planName: true },
      });
      const ranked = keys
        .map((k) => ({
          id: k.id,
          prefix: k.prefix,
          name: k.name,
          plan: k.planName,
          requestsToday: todayByKey.get(k.id) ?? 0,
        }))
        .sort((a, b) => b.requestsToday - a.requestsToday);
      const sum = (m: Map<string, number>) => [...m.values()].reduce((n, v) => n + v, 0);
      return {
        keysByPlan: PLAN_NAMES.map((plan) => ({
          plan,
          count: planGroups.find((g) => g.planName === plan)?._count._all ?? 0,
        })),
        requests: { today: sum(todayByKey), yesterday: sum(yesterdayByKey) },
        topKeys: ranked.slice(0, 5),
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
     * instance's pending ones), audited with the values before. The caller also resets the rate limiter's
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
        await tx.usageHour.deleteMany({ where: { apiKeyId: keyId, hour: { gte: new Date(day) } } });
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
