/**
 * Where usage figures come from besides the database: what this instance counted and has not written yet, so
 * a figure is current the moment a request has been answered; and the outcome classes every figure uses.
 */
import type { PrismaClient } from "@petstore/db";
import { utcDayStart } from "../utc-day.ts";
import type { AnalyticsRecorder, RecentRequest, RecentRequestStore, UsageHourRow } from "./recorder.ts";

/** Where unflushed counts and recent requests come from (the AnalyticsRecorder, or nothing). */
export interface UsageSources {
  pendingRows(): UsageHourRow[];
  /** Flushes begun so far (AnalyticsRecorder.flushCount). */
  flushCount(): number;
  /** Resolves when no flush is under way. */
  settled(): Promise<void>;
  pendingRecent(keyId: string): RecentRequest[];
  dropPending(keyId: string, since: number): void;
  recent: RecentRequestStore;
}

/** The recorder as the usage figures read it. */
export function usageSourcesOf(recorder: AnalyticsRecorder): UsageSources {
  return {
    pendingRows: () => recorder.pendingRows(),
    flushCount: () => recorder.flushCount(),
    settled: () => recorder.settled(),
    pendingRecent: (keyId) => recorder.pendingRecent(keyId),
    dropPending: (keyId, since) => recorder.dropPending(keyId, since),
    recent: recorder.recentStore,
  };
}

/** Sources when analytics are off: nothing pending, no recent requests. */
export const noUsageSources: UsageSources = {
  pendingRows: () => [],
  flushCount: () => 0,
  settled: async () => {},
  pendingRecent: () => [],
  dropPending: () => {},
  recent: { append: async () => {}, list: async () => [], close: async () => {} },
};

/**
 * Runs `read` over this instance's pending rows and the database so that no row is counted in both or in
 * neither: a flush moves rows from one to the other, and between its commit and its end they are in both. So it
 * waits for a flush under way, and reads again (at most twice more) when a flush began meanwhile.
 * @returns what the last `read` returned.
 */
export async function readWithPending<T>(
  sources: UsageSources,
  read: (pending: UsageHourRow[]) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    await sources.settled();
    const begun = sources.flushCount();
    const result = await read(sources.pendingRows());
    if (sources.flushCount() === begun || attempt === 3) return result;
  }
}

/** Outcomes of requests that reached the API (counted as "requests"); 429s are counted apart. */
export const ADMITTED = ["2xx", "4xx", "5xx"] as const;
export const isAdmitted = (outcome: string) => outcome === "2xx" || outcome === "4xx" || outcome === "5xx";
/** The stored outcomes of a 429 (see `isDenied`). */
export const DENIED = [
  "rate_limited",
  "rate_limited_minute",
  "rate_limited_day",
  "rate_limited_month",
  "key_banned",
] as const;
/** A 429, whatever refused it: `rate_limited` (window recorded or not, recorder.ts `StoredOutcome`) or `key_banned`. */
export const isDenied = (outcome: string) =>
  outcome === "rate_limited" ||
  outcome === "rate_limited_minute" ||
  outcome === "rate_limited_day" ||
  outcome === "rate_limited_month" ||
  outcome === "key_banned";

/** Unix ms of 00:00 UTC of `date`'s day. */
export const utcDayMs = (date: Date) => utcDayStart(date.getTime());

/** Admitted requests per key since `since` (Unix ms), stored and pending, for the keys asked (all when omitted). */
export async function admittedByKey(
  prisma: PrismaClient,
  sources: UsageSources,
  since: number,
  until: number,
  keyIds?: string[],
): Promise<Map<string, number>> {
  return readWithPending(sources, async (pending) => {
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
    for (const p of pending) {
      if (p.hour < since || p.hour >= until || !isAdmitted(p.outcome)) continue;
      if (keyIds && !keyIds.includes(p.apiKeyId)) continue;
      totals.set(p.apiKeyId, (totals.get(p.apiKeyId) ?? 0) + p.requests);
    }
    return totals;
  });
}
