/**
 * Fixed windows (docs/contract.md section 3 "Rate limits"), counted in one store round trip with the CHECK script
 * (scripts.ts). Buckets and keys are those of @upstash/ratelimit's `fixedWindow`, which the limiter used before
 * (issue 7: it sent one script per window plus a GET for the ban, three commands a request):
 * bucket = `floor(Date.now() / window)`, key `<prefix>:<identifier>:<bucket>`, the window ends at
 * `(bucket + 1) * window` (so the day window turns at 00:00 UTC), a request passes when its window's counter,
 * after its own increment, is within the limit.
 */
import { type WindowSpec, windowSeconds } from "./decisions.ts";
import { CHECK } from "./scripts.ts";
import { type RateLimitStore, runScript } from "./store.ts";
import type { WindowState } from "./types.ts";

/** One window of one identifier at the time of a check. */
export interface Counter {
  spec: WindowSpec;
  limit: number;
  /** The counter key: `<prefix>:<identifier>:<bucket>`. */
  key: string;
  /** Unix ms at which the window ends. */
  resetMs: number;
}

/** A counter after the check's increment. */
export interface Hit extends Counter {
  count: number;
  success: boolean;
  remaining: number;
}

/** The counter of `identifier` in `spec`'s current bucket (by `Date.now()`, like @upstash/ratelimit). */
export function counter(spec: WindowSpec, limit: number, identifier: string, t = Date.now()): Counter {
  const bucket = Math.floor(t / spec.ms);
  return { spec, limit, key: `${spec.prefix}:${identifier}:${bucket}`, resetMs: (bucket + 1) * spec.ms };
}

/**
 * Counts one request in every counter, unless `banKey` holds a ban end after `at` (then nothing is counted).
 * @returns `{ bannedUntil }` (Unix ms) or `{ hits }` in the order of `counters`.
 * @throws what the store throws.
 */
export async function countRequest(
  store: RateLimitStore,
  banKey: string | undefined,
  counters: Counter[],
  at: number,
): Promise<{ bannedUntil: number; hits?: undefined } | { bannedUntil?: undefined; hits: Hit[] }> {
  const keys = counters.map((c) => c.key);
  const reply = (await runScript(store, CHECK, banKey === undefined ? keys : [banKey, ...keys], [
    at,
    banKey === undefined ? 0 : 1,
    ...counters.map((c) => c.spec.ms),
  ])) as unknown[];
  const bannedUntil = Number(reply[0]);
  if (bannedUntil > 0) return { bannedUntil };
  if (reply.length !== counters.length + 1) throw new Error("rate-limit store gave an unexpected reply");
  return {
    hits: counters.map((c, i) => {
      const count = Number(reply[i + 1]);
      return { ...c, count, success: count <= c.limit, remaining: Math.max(0, c.limit - count) };
    }),
  };
}

/** Window state after the check; a refunded hit gives its slot back. */
export function windowState(h: Hit, refunded: boolean): WindowState {
  return {
    name: h.spec.name,
    limit: h.limit,
    remaining: refunded && h.success ? Math.min(h.limit, h.remaining + 1) : h.remaining,
    resetMs: h.resetMs,
    windowSeconds: windowSeconds(h.spec),
  };
}
