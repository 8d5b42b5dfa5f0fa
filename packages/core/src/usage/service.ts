/**
 * API key usage as the dashboard shows it (PRODUCT.md sections 3 and 4), read from ApiKeyUsage (one row
 * per key per UTC day, written by the rate limiter): 30-day series per key, requests today per key, the
 * overview figures, and the audited "reset today's usage".
 *
 * Counters are per UTC day, so "the last 24 h" is estimated as today's count plus the share of yesterday's
 * count that falls inside the last 24 h (assuming yesterday's calls were spread evenly).
 */
import { AppError, type PlanName } from "@petstore/contracts";
import { writeAudit } from "../audit.ts";
import type { Actor, CoreDeps } from "../deps.ts";

const DAY_MS = 86_400_000;

export interface UsageDay {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  requests: number;
  rateLimited: number;
  bans: number;
  deprecatedGet: number;
}

export type AnimalsByStatus = { status: "available" | "pending" | "sold" | "none"; count: number }[];

export interface KeyOverview {
  /** Keys that still work (neither revoked nor expired), by plan. */
  keysByPlan: { plan: PlanName; count: number }[];
  requests: { today: number; yesterday: number; last24h: number };
  topKeys: { id: string; prefix: string; name: string; plan: PlanName; requests: number }[];
}

/** Midnight UTC of `date`'s day. */
export const utcDay = (date: Date) =>
  new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
const isoDay = (date: Date) => date.toISOString().slice(0, 10);

export function createUsageService({ prisma, clock }: Pick<CoreDeps, "prisma" | "clock">) {
  /** Today's and yesterday's requests per key, and the share of yesterday inside the last 24 h. */
  async function recentByKey() {
    const now = clock();
    const today = utcDay(now);
    const yesterday = new Date(today.getTime() - DAY_MS);
    const rows = await prisma.apiKeyUsage.findMany({ where: { day: { gte: yesterday } } });
    const share = 1 - (now.getTime() - today.getTime()) / DAY_MS;
    const byKey = new Map<string, { today: number; yesterday: number }>();
    for (const row of rows) {
      const entry = byKey.get(row.apiKeyId) ?? { today: 0, yesterday: 0 };
      if (row.day.getTime() === today.getTime()) entry.today += row.requests;
      else if (row.day.getTime() === yesterday.getTime()) entry.yesterday += row.requests;
      byKey.set(row.apiKeyId, entry);
    }
    return { byKey, share };
  }

  return {
    /** The last `days` UTC days for one key, oldest first, zero-filled. */
    async daily(keyId: string, days: number): Promise<UsageDay[]> {
      const today = utcDay(clock());
      const first = new Date(today.getTime() - (days - 1) * DAY_MS);
      const rows = await prisma.apiKeyUsage.findMany({
        where: { apiKeyId: keyId, day: { gte: first, lte: today } },
      });
      const byDay = new Map(rows.map((r) => [isoDay(r.day), r]));
      return Array.from({ length: days }, (_, i) => {
        const day = isoDay(new Date(first.getTime() + i * DAY_MS));
        const r = byDay.get(day);
        return {
          day,
          requests: r?.requests ?? 0,
          rateLimited: r?.rateLimited ?? 0,
          bans: r?.bans ?? 0,
          deprecatedGet: r?.deprecatedGet ?? 0,
        };
      });
    },

    /** Requests so far today (UTC) per key id; keys without calls are absent. */
    async requestsToday(): Promise<Map<string, number>> {
      const rows = await prisma.apiKeyUsage.findMany({
        where: { day: utcDay(clock()) },
        select: { apiKeyId: true, requests: true },
      });
      return new Map(rows.map((r) => [r.apiKeyId, r.requests]));
    },

    /** Animals per status (`none` = no status set), for the overview page. */
    async animalsByStatus(): Promise<AnimalsByStatus> {
      const groups = await prisma.pet.groupBy({ by: ["status"], _count: { _all: true } });
      return (["available", "pending", "sold", "none"] as const).map((status) => ({
        status,
        count: groups.find((g) => (g.status ?? "none") === status)?._count._all ?? 0,
      }));
    },

    /** Key figures for the overview page; `topKeys` are the 5 keys with the most requests in the last 24 h. */
    async keyOverview(): Promise<KeyOverview> {
      const now = clock();
      const [planGroups, recent] = await Promise.all([
        prisma.apiKey.groupBy({
          by: ["planName"],
          where: { revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
          _count: { _all: true },
        }),
        recentByKey(),
      ]);
      let today = 0;
      let yesterday = 0;
      const estimates: { id: string; requests: number }[] = [];
      for (const [id, e] of recent.byKey) {
        today += e.today;
        yesterday += e.yesterday;
        estimates.push({ id, requests: Math.round(e.today + e.yesterday * recent.share) });
      }
      const top = estimates
        .filter((e) => e.requests > 0)
        .sort((a, b) => b.requests - a.requests)
        .slice(0, 5);
      const keys = await prisma.apiKey.findMany({ where: { id: { in: top.map((t) => t.id) } } });
      const keyById = new Map(keys.map((k) => [k.id, k]));
      const plans: PlanName[] = ["free", "pro", "business", "enterprise"];
      return {
        keysByPlan: plans.map((plan) => ({
          plan,
          count: planGroups.find((g) => g.planName === plan)?._count._all ?? 0,
        })),
        requests: { today, yesterday, last24h: Math.round(today + yesterday * recent.share) },
        topKeys: top.flatMap((t) => {
          const k = keyById.get(t.id);
          return k
            ? [{ id: k.id, prefix: k.prefix, name: k.name, plan: k.planName, requests: t.requests }]
            : [];
        }),
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
