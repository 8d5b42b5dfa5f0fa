/**
 * Fixed windows (docs/contract.md section 3 "Rate limits"), counted by @upstash/ratelimit's `fixedWindow`:
 * bucket = `floor(Date.now() / window)`, counter key `<prefix>:<identifier>:<bucket>`, the window ends at
 * `(bucket + 1) * window` (so the day window turns at 00:00 UTC), and a request passes when its window's counter,
 * after its own increment, is within the limit.
 *
 * The engine's `limit()` issues its EVALSHA synchronously (no timer, no await before it), so the limiter's ban GET
 * and the minute and day scripts started in the same tick leave together: one store round trip (the stores
 * auto-pipeline them, redis-store.ts and upstash-store.ts).
 *
 * ephemeralCache is OFF for key windows: (a) denials must reach the store to be counted for bans across instances
 * anyway; (b) a banned key is short-circuited locally by the ban cache (ban-cache.ts); (c) the cache would outlive
 * `resetUsage` done on another instance (a day window blocked until midnight) and would cache denials that are
 * only transient while concurrent requests' refunds are in flight. It is ON (bounded) for the client-address
 * windows (`refuseFromMemory`), where none of that applies: an address over its limit stays refused until the
 * window ends, and a refund given back meanwhile (a key that proved valid) can only matter for that window. The engine's own `timeout` is off (it would answer limit 0 /
 * reset 0): the limiter bounds every store call with its own timer.
 */
import { Ratelimit } from "@upstash/ratelimit";
import type { Redis as UpstashRedis } from "@upstash/redis";
import { BoundedMap } from "../bounded-map.ts";
import { type WindowSpec, windowSeconds } from "./decisions.ts";
import type { RateLimitStore } from "./store.ts";
import type { WindowState } from "./types.ts";

/** One window of one identifier after the check's increment. */
export interface Hit {
  spec: WindowSpec;
  limit: number;
  success: boolean;
  remaining: number;
  /** Unix ms at which the window ends. */
  resetMs: number;
  /** The counter key the engine incremented: `<prefix>:<identifier>:<bucket>`. */
  key: string;
}

const MAX_ENGINES = 1_000;
/** Identifiers an engine refuses from memory at most (the oldest are forgotten first). */
const MAX_REFUSED = 10_000;

/** The counter key of `identifier` in `spec`'s bucket at `t` (Unix ms, the engine's clock `Date.now()`). */
export function counterKey(spec: WindowSpec, identifier: string, t = Date.now()): string {
  return `${spec.prefix}:${identifier}:${Math.floor(t / spec.ms)}`;
}

/**
 * Counts requests in fixed windows of `store` with @upstash/ratelimit.
 * @returns `hit(spec, limit, identifier, count = 1)`: counts `count` requests of `identifier` in `spec`'s
 *   current bucket (the engine's `rate`) and resolves the `Hit` of the last of them; rejects with what the store
 *   throws.
 */
export function fixedWindows(store: RateLimitStore): {
  hit(spec: WindowSpec, limit: number, identifier: string, count?: number): Promise<Hit>;
} {
  // One engine per (window, limit): @upstash/ratelimit fixes the limit per instance; keys do not depend on it.
  const engines = new Map<string, Ratelimit>();
  const engine = (spec: WindowSpec, limit: number): Ratelimit => {
    const id = `${spec.prefix}|${limit}`;
    let e = engines.get(id);
    if (!e) {
      if (engines.size >= MAX_ENGINES) engines.clear();
      e = new Ratelimit({
        redis: store as unknown as UpstashRedis,
        limiter: Ratelimit.fixedWindow(limit, `${spec.ms} ms`),
        prefix: spec.prefix,
        ephemeralCache: spec.refuseFromMemory ? new BoundedMap<string, number>(MAX_REFUSED) : false,
        analytics: false,
        timeout: 0,
        enableTelemetry: false,
      });
      engines.set(id, e);
    }
    return e;
  };

  return {
    async hit(spec, limit, identifier, count = 1) {
      const r = await engine(spec, limit).limit(identifier, count === 1 ? undefined : { rate: count });
      r.pending.catch(() => {});
      if (r.reason === "timeout" || r.reset === 0) throw new Error("rate-limit engine timed out");
      const bucket = Math.round(r.reset / spec.ms) - 1;
      return {
        spec,
        limit,
        success: r.success,
        remaining: r.remaining,
        resetMs: r.reset,
        key: `${spec.prefix}:${identifier}:${bucket}`,
      };
    },
  };
}

/**
 * Window state after the check; a refunded hit gives its slot back. `later`: requests counted after this one by
 * the same hit (a group counted together), whose slots were still free when this one was counted.
 */
export function windowState(h: Hit, refunded: boolean, later = 0): WindowState {
  return {
    name: h.spec.name,
    limit: h.limit,
    remaining: refunded && h.success ? Math.min(h.limit, h.remaining + 1) : h.remaining + later,
    resetMs: h.resetMs,
    windowSeconds: windowSeconds(h.spec),
  };
}
