/**
 * The limiter with `RATE_LIMIT_ENABLED=false` (benchmarks only, docs/contract.md section 3): admits everything without
 * touching a store and produces no rate-limit headers (usage is counted by core's analytics recorder).
 */
import type { RateLimitConfig, RateLimitDecision, RateLimiter, RateLimitMetrics } from "./types.ts";

/** A `RateLimiter` that admits every request; `stats` are the caller's. */
export function disabledLimiter(
  config: RateLimitConfig,
  stats: RateLimitMetrics,
  now: () => number,
): RateLimiter {
  const open = (): RateLimitDecision => ({ allowed: true, at: now(), windows: [] });
  return {
    async checkKey() {
      stats.checks++;
      stats.admitted++;
      return open();
    },
    async checkAnonymous() {
      stats.checks++;
      stats.admitted++;
      return open();
    },
    refundAnonymous: async () => {},
    holdRefusal: async () => {},
    isBanned: async () => null,
    unban: async () => {},
    resetUsage: async () => {},
    ready: async () => true,
    health: async () => ({ store: config.store.kind, ok: true, breaker: "closed" as const }),
    metrics: () => ({ ...stats }),
    close: async () => {},
  };
}
