/**
 * Reads analytics rows as the usage figures need them: what is stored in UsageHour plus what this instance
 * counted and has not written yet, so a figure is current the moment a request has been answered.
 */
import type { PrismaClient } from "@petstore/db";
import { utcDayStart } from "../utc-day.ts";
import type { RecentRequest, RecentRequestStore, UsageHourRow } from "./recorder.ts";

/** Where unflushed counts and recent requests come from (the AnalyticsRecorder, or nothing). */
export interface UsageSources {
  pendingRows(): UsageHourRow[];
  pendingRecent(keyId: string): RecentRequest[];
  dropPending(keyId: string, since: number): void;
  recent: RecentRequestStore;
}

/** Sources when analytics are off: nothing pending, no recent requests. */
export const noUsageSources: UsageSources = {
  pendingRows: () => [],
  pendingRecent: () => [],
  dropPending: () => {},
  recent: { append: async () => {}, list: async () => [], close: async () => {} },
};

/** Outcomes of requests that reached the API (counted as "requests"); 429s are counted apart. */
export const ADMITTED = ["2xx", "4xx", "5xx"] as const;
export const isAdmitted = (outcome: string) => outcome === "2xx" || outcome === "4xx" || outcome === "5xx";
export const isDenied = (outcome: string) => outcome === "rate_limited" || outcome === "key_banned";

/** Unix ms of 00:00 UTC of `date`'s day. */
export const utcDayMs = (date: Date) => utcDayStart(date.getTime());

/**
 * Stored and pending rows with `hour >= since` (Unix ms), of one key or (keyId undefined) of every key and
 * unauthenticated traffic. `latency` is always a full histogram.
 */
export async function readRows(
  prisma: PrismaClient,
  sources: UsageSources,
  since: number,
  keyId?: string,
): Promise<UsageHourRow[]> {
  const stored = await prisma.usageHour.findMany({
    where: { hour: { gte: new Date(since) }, ...(keyId ? { apiKeyId: keyId } : {}) },
  });
  const rows: UsageHourRow[] = stored.map((r) => ({
    apiKeyId: r.apiKeyId,
    hour: r.hour.getTime(),
    operation: r.operation as UsageHourRow["operation"],
    outcome: r.outcome as UsageHourRow["outcome"],
    requests: r.requests,
    latency: r.latency,
  }));
  for (const p of sources.pendingRows())
    if (p.hour >= since && (keyId === undefined || p.apiKeyId === keyId)) rows.push(p);
  return rows;
}

/** Admitted requests per key since `since` (Unix ms), stored and pending, for the keys asked (all when omitted). */
export async function admittedByKey(
  prisma: PrismaClient,
  sources: UsageSources,
  since: number,
  until: number,
  keyIds?: string[],
): Promise<Map<string, number>> {
  const groups = await prisma.usageHour.groupBy({
    by: ["apiKeyId"],
    where: {
      hour: { gte: new Date(since), lt: new Date(until) },
      outcome: { in: [...ADMITTED] },
      ...(keyIds ? { apiKeyId: { in: keyIds } } : {}),
    },
    _sum: { requests: true },
  });
  const totals = new Map(groups.map((g) => [g.apiKeyId, g._sum.requests ?? 0]));
  for (const p of sources.pendingRows()) {
    if (p.hour < since || p.hour >= until || !isAdmitted(p.outcome)) continue;
    if (keyIds && !keyIds.includes(p.apiKeyId)) continue;
    totals.set(p.apiKeyId, (totals.get(p.apiKeyId) ?? 0) + p.requests);
  }
  return totals;
}
