/**
 * The rate limiter's fixed windows: counting a client network's with @upstash/ratelimit's `fixedWindow` (a key's are
 * counted by key-checks.ts), and the decisions a check answers from them. Promises: docs/contract.md section 3;
 * mechanics: docs/architecture.md "Rate limiter".
 * All times are Unix ms; `at` is the clock reading of the check.
 */
import { Ratelimit } from "@upstash/ratelimit";
import type { Redis as UpstashRedis } from "@upstash/redis";
import { LRUCache } from "lru-cache";
import { BoundedMap } from "../bounded-map.ts";
import { DAY_MS } from "../utc-day.ts";
import type { RateLimitStore } from "./store.ts";
import type { RateLimitDecision, WindowName, WindowState } from "./types.ts";

/** A window's definition: name, length in ms, key prefix handed to @upstash/ratelimit. */
export interface WindowSpec {
  name: WindowName;
  /** Length in ms of an epoch-aligned window; for the calendar month, that of its longest month (31 days). */
  ms: number;
  prefix: string;
  /** The UTC calendar month instead of epoch-aligned windows of `ms` (buckets `YYYYMM`, ends at 00:00 UTC of the 1st). */
  calendarMonth?: boolean;
  /**
   * An identifier found over the limit is refused from memory until the window ends (the engine's
   * `ephemeralCache`): the client-network windows, where no ban counts denials and no usage reset frees a window.
   */
  refuseFromMemory?: boolean;
}

/** A window together with the limit that applies to this caller. */
export type LimitedWindow = readonly [WindowSpec, number];

/** One window of one identifier after the check's increment. */
export interface Hit {
  spec: WindowSpec;
  limit: number;
  success: boolean;
  remaining: number;
  /** Unix ms at which the window ends. */
  resetMs: number;
}

/** Engines kept at most, one per (window, limit). */
const MAX_ENGINES = 1_000;
/** Identifiers an engine refuses from memory at most (the oldest are forgotten first). */
const MAX_REFUSED = 10_000;

/** The UTC calendar month of one UTC day: its start and end (Unix ms) and its bucket `YYYYMM`. */
interface Month {
  day: number;
  start: number;
  end: number;
  bucket: number;
}

/**
 * The month of the UTC day last asked about: every check of a day asks about the same month, and a month begins
 * and ends with a UTC day, so the day's index decides it (no Date per check).
 */
let lastMonth: Month = { day: Number.NaN, start: 0, end: 0, bucket: 0 };

/** The UTC calendar month containing the Unix ms `t`. */
function monthOf(t: number): Month {
  const day = Math.floor(t / DAY_MS);
  if (day !== lastMonth.day) {
    const d = new Date(day * DAY_MS);
    const [y, m] = [d.getUTCFullYear(), d.getUTCMonth()];
    lastMonth = { day, start: Date.UTC(y, m, 1), end: Date.UTC(y, m + 1, 1), bucket: y * 100 + m + 1 };
  }
  return lastMonth;
}

/** Unix ms of 00:00 UTC on the first of the month after the one containing the Unix ms `t`. */
export const monthEnd = (t: number): number => monthOf(t).end;

/** Unix ms of 00:00 UTC on the first of the month containing the Unix ms `t`. */
export const monthStart = (t: number): number => monthOf(t).start;

/** `spec`'s bucket at `t` (Unix ms): the window's index since the epoch, or `YYYYMM` for the calendar month. */
export function bucketOf(spec: WindowSpec, t: number): number {
  return spec.calendarMonth ? monthOf(t).bucket : Math.floor(t / spec.ms);
}

/** Unix ms at which `spec`'s window containing `t` (Unix ms) ends. */
export function specEnd(spec: WindowSpec, t: number): number {
  return spec.calendarMonth ? monthEnd(t) : windowEnd(t, spec.ms);
}

/** The counter key of `identifier` in `spec`'s bucket at `t` (Unix ms, the engine's clock `Date.now()`). */
export function counterKey(spec: WindowSpec, identifier: string, t: number): string {
  return `${spec.prefix}:${identifier}:${bucketOf(spec, t)}`;
}

/**
 * Counts requests in fixed windows of `store` with @upstash/ratelimit.
 * @returns `hit(spec, limit, identifier)`: counts a request of `identifier` in `spec`'s current bucket and
 *   resolves its `Hit`; rejects with what the store throws.
 */
export function fixedWindows(store: RateLimitStore): {
  hit(spec: WindowSpec, limit: number, identifier: string): Promise<Hit>;
} {
  // The engine fixes the limit per instance; its counter keys do not depend on it.
  const engines = new LRUCache<string, Ratelimit>({ max: MAX_ENGINES });
  const engine = (spec: WindowSpec, limit: number): Ratelimit => {
    const id = `${spec.prefix}|${limit}`;
    let e = engines.get(id);
    if (!e) {
      e = new Ratelimit({
        redis: store as unknown as UpstashRedis,
        limiter: Ratelimit.fixedWindow(limit, `${spec.ms} ms`),
        prefix: spec.prefix,
        // Off for key windows: denials must reach the store to count towards a ban, and a `resetUsage` on another
        // instance must apply at once. The engine takes only a `Map` instance here (it checks `instanceof Map`),
        // hence BoundedMap rather than an LRUCache.
        ephemeralCache: spec.refuseFromMemory ? new BoundedMap<string, number>(MAX_REFUSED) : false,
        analytics: false,
        // Off: the engine would answer limit 0 / reset 0; the limiter bounds every store call itself.
        timeout: 0,
        enableTelemetry: false,
      });
      engines.set(id, e);
    }
    return e;
  };

  return {
    async hit(spec, limit, identifier) {
      const r = await engine(spec, limit).limit(identifier);
      r.pending.catch(() => {});
      if (r.reason === "timeout" || r.reset === 0) throw new Error("rate-limit engine timed out");
      return { spec, limit, success: r.success, remaining: r.remaining, resetMs: r.reset };
    },
  };
}

/** Window length in whole seconds (>= 1) for `w=`: for the calendar month, that of the month containing `t`. */
export const windowSeconds = (spec: WindowSpec, t = 0) => {
  if (!spec.calendarMonth) return Math.max(1, Math.round(spec.ms / 1000));
  const month = monthOf(t);
  return (month.end - month.start) / 1000;
};

/** Whole seconds (>= 1) from `at` until `resetMs`. */
const retryAfter = (resetMs: number, at: number) => Math.max(1, Math.ceil((resetMs - at) / 1000));

/** Unix ms at which the epoch-aligned fixed window of length `windowMs` containing `ms` ends. */
export const windowEnd = (ms: number, windowMs: number) => (Math.floor(ms / windowMs) + 1) * windowMs;

/** Window state after the check. */
export function windowState(h: Hit): WindowState {
  return {
    name: h.spec.name,
    limit: h.limit,
    remaining: h.remaining,
    resetMs: h.resetMs,
    windowSeconds: windowSeconds(h.spec),
  };
}

/** The window with the fewest remaining requests; on a tie the one that resets later (the stricter hint). */
function fewestRemaining(windows: WindowState[]): WindowState | undefined {
  return windows.reduce<WindowState | undefined>(
    (best, w) =>
      !best || w.remaining < best.remaining || (w.remaining === best.remaining && w.resetMs > best.resetMs)
        ? w
        : best,
    undefined,
  );
}

/** The window that resets last: when several windows deny, requests succeed only after it resets. */
function resetsLast(windows: WindowState[]): WindowState | undefined {
  return windows.reduce<WindowState | undefined>((a, w) => (!a || w.resetMs > a.resetMs ? w : a), undefined);
}

/** Admitted: headers describe the window with the fewest remaining requests. */
export function admitted(at: number, windows: WindowState[]): RateLimitDecision {
  return { allowed: true, at, windows, reported: fewestRemaining(windows) };
}

/**
 * Denied by `denying` (a non-empty subset of `windows`): headers and Retry-After follow the denying window that
 * resets last; `quota_exceeded` when that is the month's quota, else `rate_limited`.
 */
export function rateLimited(at: number, windows: WindowState[], denying: WindowState[]): RateLimitDecision {
  const reported = resetsLast(denying) ?? windows[0];
  return {
    allowed: false,
    code: reported?.name === "month" ? "quota_exceeded" : "rate_limited",
    at,
    windows,
    reported,
    retryAfterSeconds: retryAfter(reported?.resetMs ?? at, at),
  };
}

/** Banned until `until`: every window reports 0 remaining until the ban ends; Retry-After to the ban's end. */
export function banned(at: number, until: number, limits: LimitedWindow[]): RateLimitDecision {
  const windows = limits.map(([spec, limit]) => ({
    name: spec.name,
    limit,
    remaining: 0,
    resetMs: until,
    windowSeconds: windowSeconds(spec, at),
  }));
  return {
    allowed: false,
    code: "key_banned",
    at,
    windows,
    reported: windows[0],
    retryAfterSeconds: retryAfter(until, at),
    bannedUntil: until,
  };
}

/**
 * Store failed: admitted unchecked (`degraded`). Counts are unknown, so each window reports its full limit and
 * the end of the current window computed locally (never the engine's limit 0 / reset 0).
 */
export function failedOpen(at: number, limits: LimitedWindow[]): RateLimitDecision {
  const windows = limits.map(([spec, limit]) => ({
    name: spec.name,
    limit,
    remaining: limit,
    resetMs: specEnd(spec, at),
    windowSeconds: windowSeconds(spec, at),
  }));
  return { ...admitted(at, windows), degraded: true };
}
