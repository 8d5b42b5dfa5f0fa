/**
 * Request analytics figures (docs/contract.md section 4, "Usage and analytics"), from the same hourly rows
 * as every other usage figure (summed in the database, `sums.ts`, plus this instance's unflushed rows): the
 * last 24 hours by hour, the last 30 days by day (each point with its outcome counts and p50/p95 latency), the
 * breakdown by operation and outcome, and a key's recent requests.
 */

import { AppError } from "@petstore/contracts";
import type { CoreDeps } from "../deps.ts";
import { DAY_MS, isoDay } from "../utc-day.ts";
import { addHistogram, emptyHistogram, percentile } from "./histogram.ts";
import {
  OPERATIONS,
  type Operation,
  OUTCOMES,
  type Outcome,
  RECENT_LIMIT,
  type RecentRequest,
  reportedOutcome,
} from "./recorder.ts";
import { isAdmitted, readWithPending, type UsageSources, utcDayMs } from "./rows.ts";
import { type Sum, storedHoursByOutcome, storedTraffic } from "./sums.ts";

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

/** One hour of a chosen day: its traffic point, with its `rate_limited` 429s split by the window that refused them. */
export interface DayHourPoint extends TrafficPoint {
  /** 429s refused by the minute window. */
  minuteWindow: number;
  /** 429s refused by the day window. */
  dayWindow: number;
  /** 429s `rate_limited` whose window was not recorded (rows written before windows were). */
  windowUnrecorded: number;
}

/** A key's chosen UTC day by hour. */
export interface DayByHour {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  /** The earliest day that can be asked for (`YYYY-MM-DD`, UTC): the retention of hourly rows ends there. */
  earliest: string;
  /** Today (`YYYY-MM-DD`, UTC) by the service's clock: the latest day that can be asked for. */
  today: string;
  /** The day's 24 hours, oldest first (hours not begun yet are zero). */
  hours: DayHourPoint[];
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

/**
 * @param deps Prisma, the clock and `retentionDays`, how many days of hourly rows are kept (ANALYTICS_RETENTION_DAYS)
 * @param sources this instance's unflushed counts and the recent-requests store
 */
export function createAnalyticsQueries(
  { prisma, clock, retentionDays }: Pick<CoreDeps, "prisma" | "clock"> & { retentionDays: number },
  sources: UsageSources,
) {
  return {
    /**
     * Traffic of one key, of a set of keys (an account's, as an array), or of the whole API (every key and
     * requests without one) when `keyId` is omitted: the stored sums (sums.ts, grouped in the database) plus this
     * instance's unflushed rows.
     * @param days length of the daily series and of the breakdown's range (1-90).
     */
    async traffic(keyId: string | readonly string[] | undefined, days = 30): Promise<Traffic> {
      const keys = typeof keyId === "string" ? new Set([keyId]) : keyId && new Set(keyId);
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
      const add = (point: ReturnType<typeof series>[number] | undefined, stored: string, sum: Sum) => {
        const outcome = reportedOutcome(stored);
        if (!point || !outcome) return;
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
        const outcome = reportedOutcome(o.outcome);
        if (op && outcome) op[outcome] += o.requests;
      }
      for (const r of pending) {
        if (keys && !keys.has(r.apiKeyId)) continue;
        if (r.hour >= hourRange.from && r.hour < hourRange.to) {
          add(hourly[Math.floor((r.hour - firstHour) / HOUR_MS)], r.outcome, r);
          addHistogram(latency24h, r.latency);
        }
        if (r.hour >= dayRange.from && r.hour < dayRange.to) {
          add(daily[Math.floor((r.hour - firstDay) / DAY_MS)], r.outcome, r);
          const op = ops.get(r.operation);
          const outcome = reportedOutcome(r.outcome);
          if (op && outcome) op[outcome] += r.requests;
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
     * One key's chosen UTC day by hour (stored sums plus this instance's unflushed rows): each hour's requests by
     * outcome, its `rate_limited` 429s split by refusing window, and p50/p95 latency.
     * @param day `YYYY-MM-DD` (UTC), today or an earlier day within the retention of hourly rows
     * @returns `{day, earliest, today, hours}`, 24 hours oldest first
     * @throws AppError validation_failed (path `day`) for a day after today or older than the retention
     */
    async dayByHour(keyId: string, day: string): Promise<DayByHour> {
      const from = Date.parse(`${day}T00:00:00.000Z`);
      const today = utcDayMs(clock());
      const oldest = today - (retentionDays - 1) * DAY_MS;
      const refuse = (message: string) =>
        new AppError("validation_failed", message, [{ path: "day", message }]);
      if (Number.isNaN(from) || isoDay(new Date(from)) !== day) throw refuse(`${day} is not a calendar day.`);
      if (from > today)
        throw refuse(`${day} is in the future; the latest day is ${isoDay(new Date(today))}.`);
      if (from < oldest) {
        throw refuse(
          `${day} is older than the ${retentionDays} days of hourly usage kept; the earliest day is ${isoDay(new Date(oldest))}.`,
        );
      }
      const to = from + DAY_MS;
      const [stored, pending] = await readWithPending(
        sources,
        async (rows) => [await storedHoursByOutcome(prisma, keyId, from, to), rows] as const,
      );
      const hours = series(from, HOUR_MS, 24, (ms) => new Date(ms).toISOString());
      const windows = hours.map(() => ({ minuteWindow: 0, dayWindow: 0, windowUnrecorded: 0 }));
      const add = (start: number, stored: string, sum: Sum) => {
        const i = Math.floor((start - from) / HOUR_MS);
        const point = hours[i];
        const split = windows[i];
        const outcome = reportedOutcome(stored);
        if (!point || !split || !outcome) return;
        point.counts[outcome] += sum.requests;
        addHistogram(point.latency, sum.latency);
        if (stored === "rate_limited_minute") split.minuteWindow += sum.requests;
        else if (stored === "rate_limited_day") split.dayWindow += sum.requests;
        // The chart splits the minute and the day; a month's quota refusal joins the other refusals.
        else if (stored === "rate_limited" || stored === "rate_limited_month")
          split.windowUnrecorded += sum.requests;
      };
      for (const h of stored) add(h.start, h.outcome, h);
      for (const r of pending)
        if (r.apiKeyId === keyId && r.hour >= from && r.hour < to) add(r.hour, r.outcome, r);
      return {
        day,
        earliest: isoDay(new Date(oldest)),
        today: isoDay(new Date(today)),
        hours: hours.map((h, i) => ({ ...point(h), ...windows[i] }) as DayHourPoint),
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
