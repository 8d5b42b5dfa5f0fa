/**
 * Request analytics figures (docs/contract.md section 4, "Usage and analytics"), from the same UsageHour rows
 * as every other usage figure (stored plus unflushed, `rows.ts`): the last 24 hours by hour, the last 30 days
 * by day (each point with its outcome counts and p50/p95 latency), the breakdown by operation and outcome, and
 * a key's recent requests.
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
import { isAdmitted, readRows, type UsageSources, utcDayMs } from "./rows.ts";

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
     * Traffic of one key, or of the whole API (every key and requests without one) when `keyId` is omitted.
     * @param days length of the daily series and of the breakdown's range (1-90).
     */
    async traffic(keyId: string | undefined, days = 30): Promise<Traffic> {
      const now = clock().getTime();
      const today = utcDayMs(new Date(now));
      const firstDay = today - (days - 1) * DAY_MS;
      const firstHour = now - (now % HOUR_MS) - 23 * HOUR_MS;
      const rows = await readRows(prisma, sources, Math.min(firstDay, firstHour), keyId);
      const hourly = series(firstHour, HOUR_MS, 24, (ms) => new Date(ms).toISOString());
      const daily = series(firstDay, DAY_MS, days, (ms) => new Date(ms).toISOString().slice(0, 10));
      const ops = new Map(OPERATIONS.map((o) => [o, zeroCounts()]));
      const latency24h = emptyHistogram();
      let requestsToday = 0;
      for (const r of rows) {
        const h = hourly[Math.floor((r.hour - firstHour) / HOUR_MS)];
        if (h && r.hour >= firstHour) {
          h.counts[r.outcome] += r.requests;
          addHistogram(h.latency, r.latency);
          addHistogram(latency24h, r.latency);
        }
        const d = r.hour >= firstDay ? daily[Math.floor((r.hour - firstDay) / DAY_MS)] : undefined;
        if (d) {
          d.counts[r.outcome] += r.requests;
          addHistogram(d.latency, r.latency);
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
