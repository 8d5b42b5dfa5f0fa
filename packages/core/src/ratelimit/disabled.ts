/**
 * The limiter with `RATE_LIMIT_ENABLED=false` (benchmarks only, docs/contract.md section 3): admits everything without
 * touching a store and produces no rate-limit headers; usage per key is still counted.
 */
import type { RateLimitConfig, RateLimitDecision, RateLimiter, RateLimitMetrics } from "./types.ts";
import type { UsageRecorder } from "./usage.ts";

/** A `RateLimiter` that admits every request; `stats` and `usage` are the caller's. */
export function disabledLimiter(
  config: RateLimitConfig,
  usage: UsageRecorder,
  stats: RateLimitMetrics,
  now: () => number,
): RateLimiter {
  const open = (): RateLimitDecision => ({ allowed: true, at: now(), windows: [] });
  return {
    async checkKey({ keyId }) {
      stats.checks++;
      stats.admitted++;
      usage.add(keyId, "requests");
      return open();
    },
    async checkAnonymous() {
      stats.checks++;
      stats.admitted++;
      return open();
    },
    recordDeprecatedCall: (keyId) => usage.add(keyId, "deprecatedGet"),
    isBanned: async () => null,
    unban: async () => {},
    resetUsage: async () => {},
    usageToday: (keyId) => usage.today(keyId),
    flushUsage: () => usage.flush(),
    ready: async () => true,
    health: async () => ({ store: config.store.kind, ok: true }),
    metrics: () => ({ ...stats }),
    close: () => usage.close(),
  };
}
