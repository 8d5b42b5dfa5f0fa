/**
 * Rate limiting for the public API (promises: docs/contract.md section 3, docs/interface.md "Limits"; mechanics:
 * docs/architecture.md "Rate limiter"). Entry point: `createRateLimiter(options)`; its decisions are numbers, which
 * the HTTP surface turns into headers.
 */

export { createRateLimiter, createStore, type RateLimiterOptions } from "./limiter.ts";
export { createMemoryStore } from "./memory-store.ts";
export { createRedisStore } from "./redis-store.ts";
export type { RateLimitStore } from "./store.ts";
export { type BreakerState, StoreTimeoutError } from "./store-guard.ts";
export type {
  AnonymousScope,
  BanInfo,
  KeyLimits,
  MonthQuota,
  RateLimitConfig,
  RateLimitDecision,
  RateLimiter,
  RateLimitLogger,
  RateLimitMetrics,
  StoreKind,
  WindowName,
  WindowState,
} from "./types.ts";
export { createUpstashStore } from "./upstash-store.ts";
