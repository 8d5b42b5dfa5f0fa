/**
 * Rate limiting for the public API (docs/contract.md section 3; docs/interface.md "Limits").
 * Entry points: `createRateLimiter(options)` and the pure `rateLimitHeaders(decision)`.
 */

export type { BreakerState } from "./breaker.ts";
export { createStore } from "./create-store.ts";
export { rateLimitHeaders } from "./headers.ts";
export { createRateLimiter, type RateLimiterOptions } from "./limiter.ts";
export { createMemoryStore } from "./memory-store.ts";
export { createRedisStore } from "./redis-store.ts";
export type { RateLimitStore } from "./store.ts";
export { StoreTimeoutError } from "./time.ts";
export type {
  AnonymousScope,
  BanInfo,
  KeyLimits,
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
