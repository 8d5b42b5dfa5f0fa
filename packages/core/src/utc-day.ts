/**
 * The UTC day, defined once (docs/contract.md section 3: the day window, daily usage and ban levels all
 * follow the UTC day). Used by the rate limiter, the usage service and housekeeping.
 */

/** Milliseconds in a day. */
export const DAY_MS = 86_400_000;

/** Unix ms of 00:00 UTC of the day containing the Unix ms `ms`. */
export function utcDayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** Midnight UTC of `date`'s day, `days` days later (negative: earlier). */
export function utcDay(date: Date, days = 0): Date {
  return new Date(utcDayStart(date.getTime()) + days * DAY_MS);
}

/** `date`'s UTC day as `YYYY-MM-DD`. */
export function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * `[from, to)` (Unix ms) of "the last `days` days" as every usage figure counts them: today (UTC) and the
 * `days - 1` UTC days before it, the window of a key's daily charts.
 */
export function lastUtcDays(nowMs: number, days: number): { from: number; to: number } {
  const today = utcDayStart(nowMs);
  return { from: today - (days - 1) * DAY_MS, to: today + DAY_MS };
}
