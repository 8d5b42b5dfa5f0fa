/**
 * Request analytics figures (docs/contract.md section 4, "Usage and analytics"), from the same hourly rows
 * as every other usage figure (summed in the database, `sums.ts`, plus this instance's unflushed rows): the
 * last 24 hours by hour, the last 30 days by day (each point with its outcome counts and p50/p95 latency), the
 * breakdown by operation and outcome, and a key's recent requests.
 */
import type { CoreDeps } from "../deps.ts";
import { DAY_MS } from "../utc-day.ts";
import { addHistogram, emptyHistogram, percentile } from "./histogram.ts";
import {
  OPERATIONS,
  type Operation,
  OUTCOMES,
  type Outcome,
  RECENT_LIMIT,
  type RecentRequest,
} from "./recorder.ts";
import { isAdmitted, readWithPending, type UsageSources, utcDayMs } from "./rows.ts";
import { type Sum, storedTraffic } from "./sums.ts";

const HOUR_MS = 3_600_000;

/** Requests by outcome. */
export type OutcomeCounts = Record<Outcome, number>;

/** One hour or day: requests (every outcome), by outcome, and latency percentiles in ms (null: none). */
export interface TrafficPoint extends OutcomeCounts {
  /** ISO time of the hour's start, or `YYYY-MM-DD` (UTC) for a day. */
  start: string;
  total: number;
  p50: number | null;
  p95: number | null;
}

export interface Traffic {
  /** The last 24 UTC hours, oldest first; the last one is the current hour. */
  hourly: TrafficPoint[];
  /** The last `days` UTC days, oldest first; the last one is today. */
  daily: TrafficPoint[];
  /** Requests of the whole daily range by operation, each split by outcome (every operation listed). */
  byOperation: (OutcomeCounts & { operation: Operation; total: number })[];
  /** Requests of the whole daily range by outcome. */
  byOutcome: { outcome: Outcome; requests: number }[];
  /** Latency over the last 24 hours, ms. */
  latency: { p50: number | null; p95: number | null };
  /** Requests that reached the API (2xx, 4xx, 5xx) today (UTC): the "requests today" of every screen. */
  requestsToday: number;
}

const zeroCounts = (): OutcomeCounts => ({ "2xx": 0, "4xx": 0, rate_limited: 0, key_banned: 0, "5xx": 0 });
const isOutcome = (outcome: string): outcome is Outcome => (OUTCOMES as readonly string[]).includes(outcome);

function series(first: number, step: number, count: number, label: (ms: number) => string) {
  return Array.from({ length: count }, (_, i) => ({
    start: label(first + i * step),
    counts: zeroCounts(),
    latency: emptyHistogram(),
  }));
}

const point = (p: ReturnType<typeof series>[number]): TrafficPoint => ({
  start: p.start,
  ...p.counts,
  total: OUTCOMES.reduce((n, o) => n + p.counts[o], 0),
  p50: percentile(p.latency, 0.5),
  p95: percentile(p.latency, 0.95),
});

export function createAnalyticsQueries(
  { prisma, clock }: Pick<CoreDeps, "prisma" | "clock">,
  sources: UsageSources,
) {
  return {
    /**
     * Traffic of one key, or of the whole API (every key and requests without one) when `keyId` is omitted:
     * the stored sums (sums.ts, grouped in the database) plus this instance's unflushed rows.
     * @param days length of the daily series and of the breakdown's range (1-90).
     */
    async traffic(keyId: string | undefined, days = 30): Promise<Traffic> {
      const now = clock().getTime();
      const today = utcDayMs(new Date(now));
      const firstDay = today - (days - 1) * DAY_MS;
      const firstHour = now - (now % HOUR_MS) - 23 * HOUR_MS;
      const hourRange = { from: firstHour, to: firstHour + 24 * HOUR_MS };
      const dayRange = { from: firstDay, to: firstDay + days * DAY_MS };
      const [stored, pending] = await readWithPending(
        sources,
        async (rows) => [await storedTraffic(prisma, keyId, hourRange, dayRange, today), rows] as const,
      );
      const hourly = series(firstHour, HOUR_MS, 24, (ms) => new Date(ms).toISOString());
      const daily = series(firstDay, DAY_MS, days, (ms) => new Date(ms).toISOString().slice(0, 10));
      const ops = new Map(OPERATIONS.map((o) => [o, zeroCounts()]));
      const latency24h = emptyHistogram();
      let requestsToday = stored.admittedToday;
      const add = (point: ReturnType<typeof series>[number] | undefined, outcome: string, sum: Sum) => {
        if (!point || !isOutcome(outcome)) return;
        point.counts[outcome] += sum.requests;
        addHistogram(point.latency, sum.latency);
      };
      for (const h of stored.hourly) {
        add(hourly[Math.floor((h.start - firstHour) / HOUR_MS)], h.outcome, h);
        addHistogram(latency24h, h.latency);
      }
      for (const d of stored.daily) add(daily[Math.floor((d.start - firstDay) / DAY_MS)], d.outcome, d);
      for (const o of stored.byOperation) {
        const op = ops.get(o.operation as Operation);
        if (op && isOutcome(o.outcome)) op[o.outcome] += o.requests;
      }
      for (const r of pending) {
        if (keyId !== undefined && r.apiKeyId !== keyId) continue;
        if (r.hour >= hourRange.from && r.hour < hourRange.to) {
          add(hourly[Math.floor((r.hour - firstHour) / HOUR_MS)], r.outcome, r);
          addHistogram(latency24h, r.latency);
        }
        if (r.hour >= dayRange.from && r.hour < dayRange.to) {
          add(daily[Math.floor((r.hour - firstDay) / DAY_MS)], r.outcome, r);
          const op = ops.get(r.operation);
          if (op) op[r.outcome] += r.requests;
        }
        if (r.hour >= today && isAdmitted(r.outcome)) requestsToday += r.requests;
      }
      const dailyPoints = daily.map(point);
      return {
        hourly: hourly.map(point),
        daily: dailyPoints,
        byOperation: OPERATIONS.map((operation) => {
          const c = ops.get(operation) ?? zeroCounts();
          return { operation, ...c, total: OUTCOMES.reduce((n, o) => n + c[o], 0) };
        }),
        byOutcome: OUTCOMES.map((outcome) => ({
          outcome,
          requests: dailyPoints.reduce((n, p) => n + p[outcome], 0),
        })),
        latency: { p50: percentile(latency24h, 0.5), p95: percentile(latency24h, 0.95) },
        requestsToday,
      };
    },

    /**
     * A key's last requests (at most 100), newest first: time, operation, status, duration in ms, client IP,
     * request id. From the recent-requests store plus this instance's entries not yet handed to it; when the
     * store cannot be read, only the latter.
     */
    async recentRequests(keyId: string, limit = RECENT_LIMIT): Promise<RecentRequest[]> {
      const stored = await sources.recent.list(keyId, limit).catch(() => [] as RecentRequest[]);
      const pending = sources.pendingRecent(keyId);
      return [...stored, ...pending].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)).slice(0, limit);
    },
  };
}
